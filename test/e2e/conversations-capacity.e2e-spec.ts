import { until } from '../support/runs';
import { useTestApp } from '../support/suite';

// Chat turns on an API-only instance (WORKER_ENABLED=false): carried here while no worker is
// live, waiting for capacity with a notice when this instance is full; and a skill pick that
// races a message is never lost (PostgreSQL: every request its own connection).

const FIELDS = `id status lastRunId skill { identifier startPending }
  messages { role text notice runId } pending { turnDigest }`;
const CREATE = `mutation($input: CreateConversationInput!) { createConversation(input: $input) { ${FIELDS} } }`;
const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { ${FIELDS} } }`;
const SET_SKILL = `mutation($input: SetConversationSkillInput!) { setConversationSkill(input: $input) { ${FIELDS} } }`;
const DECIDE = `mutation($input: DecideConversationInput!) { decideConversationApproval(input: $input) { ${FIELDS} } }`;
const GET = `query($id: ID!) { conversation(id: $id) { ${FIELDS} } }`;

interface Conversation {
  id: string;
  status: string;
  lastRunId: string | null;
  skill: { identifier: string; startPending: boolean } | null;
  messages: Array<{ role: string; text: string; notice: string | null; runId: string | null }>;
  pending: { turnDigest: string } | null;
}

describe('chat turns without a worker process', () => {
  const { t } = useTestApp({
    WORKER_ENABLED: 'false',
    DECISION_PATH: 'auto',
    WORKER_CONCURRENCY: '1',
    DECISION_PICKUP_SECONDS: '1',
  });

  const codeOf = (res: { errors?: Array<{ extensions?: Record<string, unknown> }> }) =>
    res.errors?.[0]?.extensions?.code;
  const get = async (id: string): Promise<Conversation> =>
    (await t.gql<{ conversation: Conversation }>(GET, { id }, 'alice')).data!.conversation;
  const create = async (input: Record<string, unknown> = {}): Promise<Conversation> =>
    (await t.gql<{ createConversation: Conversation }>(CREATE, { input }, 'alice')).data!.createConversation;
  const send = (id: string, text: string) =>
    t.gql<{ sendMessage: Conversation }>(SEND, { input: { conversationId: id, text } }, 'alice');
  const runRow = async (id: string) =>
    (await t.dataSource.query('SELECT status, skill_invocation FROM run WHERE id = $1', [id]))[0] as {
      status: string;
      skill_invocation: { identifier: string } | null;
    };

  async function waitFor(id: string, status: string): Promise<Conversation> {
    await until(async () => (await get(id)).status === status, 20_000, `conversation ${id} to be ${status}`);
    return get(id);
  }

  it('carries a turn and its decision in this instance while no worker is live', async () => {
    const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM worker_heartbeat');
    expect(n).toBe(0);
    const c = await create();
    const sent = await send(c.id, 'Fix the title');
    expect(sent.data!.sendMessage.status).toBe('PROCESSING');
    const waiting = await waitFor(c.id, 'AWAITING_APPROVAL');
    // no worker exists in this test: this instance carried the turn
    expect(waiting.messages.some((m) => m.notice === 'TURN_WAITING')).toBe(false);

    const input = { conversationId: c.id, turnDigest: waiting.pending!.turnDigest, approve: true };
    const decided = await t.gql<{ decideConversationApproval: Conversation }>(DECIDE, { input }, 'alice');
    expect(decided.errors).toBeUndefined();
    // the answer is written in the run's settle transaction: the moment the run reads COMPLETED
    // (no repair in between: plain SQL), its message is there. demo-editor keeps no answer on the
    // run after a decision (METADATA), so a message written later could not be recovered.
    const deadline = Date.now() + 20_000;
    let settled = false;
    while (!settled && Date.now() < deadline) {
      const [run] = await t.dataSource.query('SELECT status FROM run WHERE id = $1', [waiting.lastRunId]);
      settled = run.status === 'COMPLETED';
      // why: the embedded database has one connection; a poll without a pause would keep it.
      if (!settled) await new Promise((r) => setTimeout(r, 5));
    }
    expect(settled).toBe(true);
    const roles = await t.dataSource.query(
      'SELECT role FROM conversation_message WHERE conversation_id = $1 ORDER BY created_at, id',
      [c.id],
    );
    expect(roles.map((r: { role: string }) => r.role)).toEqual(['USER', 'ASSISTANT']);
    const done = await waitFor(c.id, 'IDLE');
    expect(done.messages.map((m) => [m.role, m.notice])).toEqual([
      ['USER', null],
      ['ASSISTANT', null],
    ]);
    expect((await runRow(waiting.lastRunId!)).status).toBe('COMPLETED');
  }, 30_000);

  it('says a turn waits for capacity when this instance is full, then carries it', async () => {
    // the first round of each turn takes 2 s, so the first turn holds the one slot meanwhile
    await t.dataSource.query(
      `UPDATE configuration SET provider_options = jsonb_set(provider_options, '{rounds,0,delayMs}', '2000')
        WHERE identifier = 'demo-editor'`,
    );
    try {
      const a = await create();
      const b = await create();
      expect((await send(a.id, 'First')).errors).toBeUndefined();
      const sent = await send(b.id, 'Second');
      expect(sent.errors).toBeUndefined();
      const queued = await get(b.id);
      expect(queued.messages.map((m) => [m.role, m.notice])).toEqual([
        ['USER', null],
        ['NOTICE', 'TURN_WAITING'],
      ]);
      expect(queued.messages[1]!.text).toContain('busy');
      expect((await runRow(queued.lastRunId!)).status).toBe('QUEUED');
      // the reconcile of this instance takes it once the slot is free
      await waitFor(b.id, 'AWAITING_APPROVAL');
      expect((await get(a.id)).messages.some((m) => m.notice === 'TURN_WAITING')).toBe(false);
    } finally {
      await t.dataSource.query(
        `UPDATE configuration SET provider_options = provider_options #- '{rounds,0,delayMs}'
          WHERE identifier = 'demo-editor'`,
      );
    }
  }, 30_000);

  it('never loses a skill pick that races a message (100 tries)', async () => {
    // a live worker (a row only): turns wait QUEUED, so every try starts from the same state
    const liveWorker = () =>
      t.dataSource.query(
        `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('race-worker', 'worker:race')
         ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
      );
    // a second process skill in the catalogue, to pick while the first one's start is pending
    const [{ id: auditId }] = await t.dataSource.query(
      `INSERT INTO skill (identifier, name, body, is_process) VALUES ('audit-process', 'Audit', 'Audit it.', true)
       RETURNING id`,
    );
    await t.dataSource.query(
      `INSERT INTO skill_version (skill_id, version, name, body, is_process, state, approved_at)
       VALUES ($1, 1, 'Audit', 'Audit it.', true, 'APPROVED', now())`,
      [auditId],
    );
    await t.dataSource.query(
      `INSERT INTO configuration_skill (configuration_id, skill_id)
       SELECT id, $1 FROM configuration WHERE identifier = 'demo-editor'`,
      [auditId],
    );
    const c = await create({ skill: 'seo-process' });
    const [{ id: seoId }] = await t.dataSource.query(`SELECT id FROM skill WHERE identifier = 'seo-process'`);
    const outcomes = { pickFirst: 0, sendFirst: 0, pickOnly: 0, sendOnly: 0, lost: 0 };
    for (let i = 0; i < 100; i++) {
      await liveWorker();
      await t.dataSource.query(`UPDATE run SET status = 'CANCELLED' WHERE status = 'QUEUED'`);
      // the conversation's process (seo) is to be started by its next turn
      await t.dataSource.query(
        `UPDATE conversation SET status = 'IDLE', active_run_id = NULL, skill_identifier = 'seo-process',
                skill_id = $2, skill_is_process = true, skill_start_pending = true WHERE id = $1`,
        [c.id, seoId],
      );
      const [sent, picked] = await Promise.all([
        send(c.id, `Try ${i}`),
        t.gql<{ setConversationSkill: Conversation }>(
          SET_SKILL,
          { input: { conversationId: c.id, skill: 'audit-process' } },
          'alice',
        ),
      ]);
      for (const refused of [sent, picked].filter((r) => r.errors)) {
        expect(codeOf(refused)).toBe('CONVERSATION_BUSY');
      }
      const [row] = await t.dataSource.query(
        'SELECT skill_identifier, skill_start_pending FROM conversation WHERE id = $1',
        [c.id],
      );
      const sendRun = sent.data?.sendMessage ? await runRow(sent.data.sendMessage.lastRunId!) : null;
      if (picked.data?.setConversationSkill) {
        expect(row.skill_identifier).toBe('audit-process');
        // the pick is either still to be started, or the turn that went with it invoked it
        const invoked = sendRun?.skill_invocation?.identifier === 'audit-process';
        if (!row.skill_start_pending && !invoked) outcomes.lost++;
        if (sendRun) outcomes[invoked ? 'pickFirst' : 'sendFirst']++;
        else outcomes.pickOnly++;
      } else {
        outcomes.sendOnly++;
      }
    }
    console.log('pick race outcomes', outcomes);
    expect(outcomes.lost).toBe(0);
    expect(outcomes.pickFirst + outcomes.sendFirst + outcomes.pickOnly + outcomes.sendOnly).toBe(100);
  }, 120_000);
});
