import { ApprovalExpiry } from '../../src/modules/approvals';
import { until } from '../support/runs';
import { useTestApp } from '../support/suite';

// A chat waiting on a proposal whose deadline passed (docs/decisions.md, "Deadlines").

const FIELDS = `id status approvalRunId messages { role text notice runId }`;
const CREATE = `mutation($input: CreateConversationInput!) { createConversation(input: $input) { ${FIELDS} } }`;
const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { ${FIELDS} } }`;
const GET = `query($id: ID!) { conversation(id: $id) { ${FIELDS} } }`;

interface Conversation {
  id: string;
  status: string;
  approvalRunId: string | null;
  messages: Array<{ role: string; text: string; notice: string | null; runId: string | null }>;
}

describe('conversations: a proposal that lapses', () => {
  // why: the sweep of this instance stays out of the way; the test runs one pass itself.
  const { t, ids } = useTestApp({ APPROVAL_EXPIRY_INTERVAL_SECONDS: '3600' });

  const get = async (id: string): Promise<Conversation> => {
    const res = await t.gql<{ conversation: Conversation }>(GET, { id }, 'alice');
    if (!res.data?.conversation) throw new Error(JSON.stringify(res.errors));
    return res.data.conversation;
  };

  it('gets a notice in the reader’s language, then the answer to the denial', async () => {
    const created = await t.gql<{ createConversation: Conversation }>(
      CREATE,
      { input: { pageId: ids.pages.About, languageId: 0, skill: 'seo-process' } },
      'alice',
    );
    const id = created.data!.createConversation.id;
    await t.gql(SEND, { input: { conversationId: id, text: 'Optimise this page' } }, 'alice');
    let c = await get(id);
    await until(async () => (c = await get(id)).status !== 'PROCESSING', 20_000, 'the proposal');
    expect(c.status).toBe('AWAITING_APPROVAL');
    const runId = c.approvalRunId!;
    // why: the deadline as if it had passed a moment ago (the configuration's timeout is the
    // suspend's business, tested elsewhere); PostgreSQL's clock decides it is due.
    await t.dataSource.query(`UPDATE run SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      runId,
    ]);
    expect(await t.app.get(ApprovalExpiry).sweepOnce(10)).toBe(1);
    await until(
      async () => !['PROCESSING', 'AWAITING_APPROVAL'].includes((c = await get(id)).status),
      20_000,
      'rest',
    );
    const notices = c.messages.filter((m) => m.notice === 'APPROVAL_EXPIRED');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.text).toBe(
      'Nobody decided on this proposal before its deadline: it lapsed and nothing was changed.',
    );
    expect(notices[0]!.runId).toBe(runId);
    const [decision] = await t.dataSource.query('SELECT kind, decided_by FROM decision WHERE run_id = $1', [
      runId,
    ]);
    expect(decision).toEqual({ kind: 'EXPIRE', decided_by: null });
  });
});
