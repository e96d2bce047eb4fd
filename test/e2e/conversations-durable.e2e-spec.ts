import { RecordedDecisions } from '../../src/modules/approvals';
import { QueuedRunPicker } from '../../src/modules/worker';
import { demoIds, until } from '../support/runs';
import { useTestApp } from '../support/suite';
import type { Conversation as ApiConversation, Message, PendingTurn } from '../support/generated/schema';

// A chat turn and a chat decision carried out by "the worker" step by step: the test plays
// the worker itself (no picker in this process), so it can change the world in between.

const FIELDS = `id status lastRunId approvalRunId messages { role text notice noticeArgs } pending { turnDigest }`;
const CREATE = `mutation($input: CreateConversationInput!) { createConversation(input: $input) { ${FIELDS} } }`;
const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { ${FIELDS} } }`;
const DECIDE = `mutation($input: DecideConversationInput!) { decideConversationApproval(input: $input) { ${FIELDS} } }`;
const GET = `query($id: ID!) { conversation(id: $id) { ${FIELDS} } }`;

type Conversation = Pick<ApiConversation, 'id' | 'status' | 'lastRunId' | 'approvalRunId'> & {
  messages: Array<Pick<Message, 'role' | 'text' | 'notice' | 'noticeArgs'>>;
  pending: Pick<PendingTurn, 'turnDigest'> | null;
};

describe('chat turns and decisions on the durable path', () => {
  const { t } = useTestApp({ DECISION_PATH: 'durable', WORKER_ENABLED: 'false' });

  const get = async (id: string): Promise<Conversation> =>
    (await t.gql<{ conversation: Conversation }>(GET, { id }, 'alice')).data!.conversation;
  const runStatus = async (id: string): Promise<string> =>
    (await t.dataSource.query('SELECT status FROM run WHERE id = $1', [id]))[0].status;
  const codeOf = (res: { errors?: Array<{ extensions?: Record<string, unknown> }> }) =>
    res.errors?.[0]?.extensions?.code;

  async function liveWorker(): Promise<void> {
    await t.dataSource.query(
      `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('test-worker', 'worker:test')
       ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
    );
  }

  it('queues a turn for a worker, hands a refused decision back as a notice, then carries the next one out', async () => {
    // why: a live worker, so the turn waits QUEUED for it (without one, this instance carries it)
    await liveWorker();
    const created = await t.gql<{ createConversation: Conversation }>(CREATE, { input: {} }, 'alice');
    const c = created.data!.createConversation;
    const sent = await t.gql<{ sendMessage: Conversation }>(
      SEND,
      { input: { conversationId: c.id, text: 'Fix the title' } },
      'alice',
    );
    const runId = sent.data!.sendMessage.lastRunId!;
    expect(sent.data!.sendMessage.status).toBe('PROCESSING');
    expect(await runStatus(runId)).toBe('QUEUED'); // nobody carries it yet

    await t.app.get(QueuedRunPicker).pickOnce();
    await until(async () => (await get(c.id)).status === 'AWAITING_APPROVAL', 10_000, 'the turn to wait');
    const waiting = await get(c.id);
    expect(waiting.approvalRunId).toBe(runId);

    // the chat records the decision; a worker will carry it out
    await liveWorker();
    const input = { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, approve: true };
    const recorded = await t.gql<{ decideConversationApproval: Conversation }>(DECIDE, { input }, 'alice');
    expect(recorded.data!.decideConversationApproval.status).toBe('PROCESSING');
    expect(await runStatus(runId)).toBe('DECISION_RECORDED');
    expect(codeOf(await t.gql(DECIDE, { input }, 'alice'))).toBe('DECISION_IN_FLIGHT');

    // the worker finds the configuration deactivated meanwhile: the decision is handed back
    await t.dataSource.query(`UPDATE configuration SET is_active = false WHERE identifier = 'demo-editor'`);
    try {
      expect(await t.app.get(RecordedDecisions).pickUp('test', 5)).toHaveLength(1);
    } finally {
      await t.dataSource.query(`UPDATE configuration SET is_active = true WHERE identifier = 'demo-editor'`);
    }
    const handedBack = await get(c.id);
    expect(handedBack.status).toBe('AWAITING_APPROVAL');
    expect(await runStatus(runId)).toBe('WAITING_FOR_APPROVAL');
    const notices = handedBack.messages.filter((m) => m.notice === 'DECISION_HANDED_BACK');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.noticeArgs).toEqual({ code: 'CONFIGURATION_INACTIVE' });
    expect(notices[0]!.text).toContain('deactivated');

    // decided again, and this time carried out: the answer arrives as an assistant message
    await liveWorker();
    const again = await t.gql<{ decideConversationApproval: Conversation }>(DECIDE, { input }, 'alice');
    expect(again.errors).toBeUndefined();
    expect(await t.app.get(RecordedDecisions).pickUp('test', 5)).toHaveLength(1);
    await until(async () => (await get(c.id)).status === 'IDLE', 10_000, 'the answer');
    const done = await get(c.id);
    expect(done.messages.map((m) => m.role)).toEqual(['USER', 'NOTICE', 'ASSISTANT']);
    expect(await runStatus(runId)).toBe('COMPLETED');
    const [{ n }] = await t.dataSource.query(
      'SELECT count(*)::int AS n FROM decision WHERE run_id = $1 AND handed_back_code IS NULL',
      [runId],
    );
    expect(n).toBe(1);
  }, 30_000);

  it('stops a process run whose configuration came under four-eyes before the worker carried its decision', async () => {
    const ids = await demoIds(t);
    await liveWorker();
    const created = await t.gql<{ createConversation: Conversation }>(
      CREATE,
      { input: { pageId: ids.pages.About, languageId: 0, skill: 'seo-process' } },
      'alice',
    );
    const c = created.data!.createConversation;
    const sent = await t.gql<{ sendMessage: Conversation }>(
      SEND,
      { input: { conversationId: c.id, text: 'Optimise this page' } },
      'alice',
    );
    const runId = sent.data!.sendMessage.lastRunId!;
    await t.app.get(QueuedRunPicker).pickOnce();
    await until(
      async () => (await get(c.id)).status === 'AWAITING_APPROVAL',
      10_000,
      'the process turn to wait',
    );
    const [{ process_pin }] = await t.dataSource.query('SELECT process_pin FROM run WHERE id = $1', [runId]);
    expect(process_pin).not.toBeNull();

    await liveWorker();
    const input = { conversationId: c.id, turnDigest: (await get(c.id)).pending!.turnDigest, approve: true };
    const recorded = await t.gql<{ decideConversationApproval: Conversation }>(DECIDE, { input }, 'alice');
    expect(recorded.errors).toBeUndefined();
    expect(await runStatus(runId)).toBe('DECISION_RECORDED');

    // four-eyes is switched on before the worker picks the decision up: the inline path would
    // refuse with PROCESS_STOPPED_SECOND_APPROVER and fail the run; the worker does the same
    await t.dataSource.query(
      `UPDATE configuration SET require_second_approver = true WHERE identifier = 'demo-editor'`,
    );
    try {
      expect(await t.app.get(RecordedDecisions).pickUp('test', 5)).toHaveLength(1);
    } finally {
      await t.dataSource.query(
        `UPDATE configuration SET require_second_approver = false WHERE identifier = 'demo-editor'`,
      );
    }
    const [run] = await t.dataSource.query(
      'SELECT status, termination_reason, error_message FROM run WHERE id = $1',
      [runId],
    );
    expect(run).toMatchObject({ status: 'FAILED', termination_reason: 'APPROVAL_DENIED' });
    expect(run.error_message).toContain('second approver');
    const [{ writes }] = await t.dataSource.query(
      `SELECT count(*)::int AS writes FROM run_step WHERE run_id = $1 AND kind IN ('TOOL_WRITE', 'APPROVAL')`,
      [runId],
    );
    expect(writes).toBe(0);
    await until(async () => (await get(c.id)).status === 'FAILED', 10_000, 'the conversation to fail');
    const notices = (await get(c.id)).messages.filter((m) => m.notice === 'RUN_FAILED');
    expect(notices).toHaveLength(1);
  }, 30_000);
});
