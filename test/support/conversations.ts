import { until, type DemoIds } from './runs';
import { useTestApp } from './suite';
import type { TestApp } from './test-app';
import type {
  Conversation as ApiConversation,
  ConversationSkill,
  Message as ApiMessage,
  PendingTurn,
  ViewContext,
} from './generated/schema';

/**
 * The chat's documents and helpers for the conversations-*.e2e-spec.ts suites (docs/chat-and-skills.md):
 * the chat through the public API, on the demo data.
 */

const FIELDS = `id status title lastRunId approvalRunId
  viewContext { pageId languageId module }
  skill { identifier skillId isProcess startPending }
  messages { id role text notice noticeArgs runId }
  pending { kind turnDigest }`;
export const CREATE = `mutation($input: CreateConversationInput!) { createConversation(input: $input) { ${FIELDS} } }`;
export const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { ${FIELDS} } }`;
export const SET_SKILL = `mutation($input: SetConversationSkillInput!) { setConversationSkill(input: $input) { ${FIELDS} } }`;
export const DECIDE = `mutation($input: DecideConversationInput!) { decideConversationApproval(input: $input) { ${FIELDS} } }`;
export const SUBMIT = `mutation($input: SubmitConversationInputInput!) { submitConversationInput(input: $input) { ${FIELDS} } }`;
export const GET = `query($id: ID!) { conversation(id: $id) { ${FIELDS} } }`;
export const CATALOGUE = `{ skillCatalogue { identifier name description isProcess skillId } }`;
export const EVENTS = `subscription($id: ID!) { conversationEvents(conversationId: $id) {
  kind conversationId status stepCount message { role text notice } } }`;

export type Message = Pick<ApiMessage, 'id' | 'role' | 'text' | 'notice' | 'runId'> & {
  noticeArgs: Record<string, unknown> | null;
};
export type Conversation = Pick<
  ApiConversation,
  'id' | 'status' | 'title' | 'lastRunId' | 'approvalRunId'
> & {
  viewContext: Omit<ViewContext, '__typename'>;
  skill: Omit<ConversationSkill, '__typename'> | null;
  messages: Message[];
  pending: Pick<PendingTurn, 'kind' | 'turnDigest'> | null;
};

export const codeOf = (res: { errors?: Array<{ extensions?: Record<string, unknown> }> }) =>
  res.errors?.[0]?.extensions?.code;

export interface RunRow {
  status: string;
  predecessor_run_id: string | null;
  skill_invocation: Record<string, any> | null;
  process_pin: Record<string, any> | null;
  dropped_process: { reason: string } | null;
}

/** The chat helpers over the suite's app; `app` is read at each call (the app boots in beforeAll). */
function chatHelpers(app: () => TestApp) {
  async function counts(): Promise<{ conversations: number; messages: number; runs: number }> {
    const [row] = await app().dataSource.query(
      `SELECT (SELECT count(*) FROM conversation)::int AS conversations,
              (SELECT count(*) FROM conversation_message)::int AS messages,
              (SELECT count(*) FROM run)::int AS runs`,
    );
    return row;
  }

  async function create(as: string, input: Record<string, unknown>): Promise<Conversation> {
    const res = await app().gql<{ createConversation: Conversation }>(CREATE, { input }, as);
    if (!res.data?.createConversation) throw new Error(`createConversation: ${JSON.stringify(res.errors)}`);
    return res.data.createConversation;
  }

  async function get(as: string, id: string): Promise<Conversation> {
    const res = await app().gql<{ conversation: Conversation | null }>(GET, { id }, as);
    if (!res.data?.conversation) throw new Error(`conversation: ${JSON.stringify(res.errors)}`);
    return res.data.conversation;
  }

  /** Polls until the conversation stops PROCESSING. */
  async function rest(as: string, id: string): Promise<Conversation> {
    let last: Conversation | null = null;
    await until(
      async () => {
        last = await get(as, id);
        return last.status !== 'PROCESSING';
      },
      20_000,
      `conversation ${id} to rest`,
    );
    return last!;
  }

  async function send(as: string, id: string, text: string, viewContext?: Record<string, unknown>) {
    return app().gql<{ sendMessage: Conversation }>(
      SEND,
      { input: { conversationId: id, text, viewContext } },
      as,
    );
  }

  /** Sends a message and waits for the turn to rest. */
  async function turn(as: string, id: string, text: string, viewContext?: Record<string, unknown>) {
    const res = await send(as, id, text, viewContext);
    if (!res.data?.sendMessage) throw new Error(`sendMessage: ${JSON.stringify(res.errors)}`);
    expect(res.data.sendMessage.status).toBe('PROCESSING');
    return rest(as, id);
  }

  async function approveInChat(as: string, c: Conversation): Promise<Conversation> {
    const res = await app().gql<{ decideConversationApproval: Conversation }>(
      DECIDE,
      { input: { conversationId: c.id, turnDigest: c.pending!.turnDigest, approve: true } },
      as,
    );
    if (!res.data?.decideConversationApproval) throw new Error(`decide: ${JSON.stringify(res.errors)}`);
    expect(res.data.decideConversationApproval.status).toBe('PROCESSING');
    return rest(as, c.id);
  }

  async function runRow(id: string): Promise<RunRow> {
    const [row] = await app().dataSource.query(
      `SELECT status, predecessor_run_id, skill_invocation, process_pin, dropped_process FROM run WHERE id = $1`,
      [id],
    );
    return row as RunRow;
  }

  /** What the runtime received at the start of a run: the CONTEXT step (FULL privacy). */
  async function contextOf(runId: string): Promise<Record<string, any>> {
    const [row] = await app().dataSource.query(
      `SELECT payload FROM run_step WHERE run_id = $1 AND kind = 'CONTEXT'`,
      [runId],
    );
    return row.payload;
  }

  async function stepKinds(runId: string): Promise<string[]> {
    const rows: Array<{ kind: string }> = await app().dataSource.query(
      'SELECT kind FROM run_step WHERE run_id = $1 ORDER BY sequence',
      [runId],
    );
    return rows.map((r) => r.kind);
  }

  /** Runs `body` with the default Task on another configuration, then puts demo-editor back. */
  async function withDefaultTask<T>(configurationIdentifier: string, body: () => Promise<T>): Promise<T> {
    await app().dataSource.query(
      `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = $1) WHERE identifier = 'default'`,
      [configurationIdentifier],
    );
    try {
      return await body();
    } finally {
      await app().dataSource.query(
        `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = 'demo-editor')
          WHERE identifier = 'default'`,
      );
    }
  }

  return {
    counts,
    create,
    get,
    rest,
    send,
    turn,
    approveInChat,
    runRow,
    contextOf,
    stepKinds,
    withDefaultTask,
  };
}

export type ChatApp = ReturnType<typeof chatHelpers> & {
  t: TestApp;
  ids: DemoIds;
  /** The demo skills' ids by identifier. */
  skillIds: Record<string, number>;
};

/**
 * Boots the suite's own app (useTestApp), on the demo data with FULL privacy, and gives the chat
 * helpers over it; `skillIds` is set once booted.
 */
export function useChatApp(): ChatApp {
  const { t, ids } = useTestApp();
  const chat: ChatApp = { ...chatHelpers(() => t), t, ids, skillIds: {} };
  beforeAll(async () => {
    const rows: Array<{ id: number; identifier: string }> = await t.dataSource.query(
      'SELECT id, identifier FROM skill',
    );
    chat.skillIds = Object.fromEntries(rows.map((r) => [r.identifier, r.id]));
    // why: the model's input is asserted on the CONTEXT step, which keeps the transcript only under FULL.
    await t.dataSource.query(`UPDATE configuration SET privacy_level = 'FULL'`);
  }, 60_000);
  return chat;
}
