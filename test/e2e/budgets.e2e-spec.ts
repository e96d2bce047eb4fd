import { RecordedDecisions } from '../../src/modules/approvals';
import { demoIds, startRun, until, waitForRest } from '../support/runs';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';

// Token budgets (docs/budgets.md): the scripted rounds declare their usage, the caps stop a run
// before its next model call, on the inline and the durable decision path alike.

const UPSERT = `mutation ($input: ConfigurationInput!) {
  upsertConfiguration(input: $input) { id identifier maxTokensPerRun maxTokensPerUserPerDay } }`;
const DIGEST = `query($id: ID!) { run(id: $id) { pending { turnDigest } } }`;
const APPROVE = `mutation($input: ApproveRunInput!) { approveRun(input: $input) { path run { status } } }`;
const RUN = `query($id: ID!) { run(id: $id) {
  status truncated terminationReason stepCount answer decisions { path outcome }
  usage { promptTokens completionTokens totalTokens modelCalls } } }`;

const read = (input: number, output: number) => ({
  toolCalls: [{ name: 'pages_read', arguments: {} }],
  usage: { inputTokens: input, outputTokens: output },
});
const done = (input: number, output: number) => ({
  text: 'Done.',
  usage: { inputTokens: input, outputTokens: output },
});

/** 50, then a write (80: 130 in all, waits for approval), then 30 (160), then the answer. */
const RUN_CAP_ROUNDS = [
  read(40, 10),
  {
    toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Within budget' } }],
    usage: { inputTokens: 60, outputTokens: 20 },
  },
  read(20, 10),
  done(5, 5),
];

/** 50, then the answer (20): 70 a run. */
const DAY_CAP_ROUNDS = [read(40, 10), done(15, 5)];

interface RunView {
  status: string;
  truncated: boolean;
  terminationReason: string | null;
  stepCount: number;
  answer: string | null;
  decisions: Array<{ path: string; outcome: string | null }>;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number; modelCalls: number };
}

describe('token budgets', () => {
  const { t, ids } = useTestApp({ DECISION_PATH: 'durable', WORKER_ENABLED: 'false' });
  const configurationIds: Record<string, string> = {};

  const upsert = (input: Record<string, unknown>) =>
    t.gql<{ upsertConfiguration: Record<string, unknown> }>(UPSERT, {
      input: { name: input.identifier, provider: 'scripted', model: 'script', ...input },
    });
  const view = async (runId: string, as = 'admin'): Promise<RunView> => {
    const res = await t.gql<{ run: RunView }>(RUN, { id: runId }, as);
    expect(res.errors).toBeUndefined();
    return res.data!.run;
  };
  const stepKinds = async (runId: string): Promise<Record<string, number>> => {
    const rows: Array<{ kind: string; n: number }> = await t.dataSource.query(
      'SELECT kind, count(*)::int AS n FROM run_step WHERE run_id = $1 GROUP BY kind',
      [runId],
    );
    return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
  };
  const stepTotal = async (runId: string): Promise<number> => {
    const rows: Array<{ n: number }> = await t.dataSource.query(
      'SELECT count(*)::int AS n FROM run_step WHERE run_id = $1',
      [runId],
    );
    return rows[0]!.n;
  };
  const seoTitle = async (page: string): Promise<string> => {
    const rows: Array<{ seo_title: string }> = await t.dataSource.query(
      'SELECT seo_title FROM page_text WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0',
      [ids.pages[page]],
    );
    return rows[0]!.seo_title;
  };
  const noWorker = () => t.dataSource.query('DELETE FROM worker_heartbeat');
  const pretendLiveWorker = () =>
    t.dataSource.query(
      `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('test-worker', 'worker:test')
        ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
    );

  /** A run of the run-capped configuration waiting on its write, started inline. */
  async function waitingOnWrite(page: string): Promise<{ id: string; digest: string }> {
    await noWorker();
    const run = await startRun(t, 'alice', {
      configurationId: configurationIds['budget-run'],
      prompt: 'Sharpen the SEO title',
      subjectPageId: ids.pages[page],
    });
    expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
    const res = await t.gql<{ run: { pending: { turnDigest: string } } }>(DIGEST, { id: run.id }, 'alice');
    return { id: run.id, digest: res.data!.run.pending.turnDigest };
  }

  /** What every run stopped by the run cap after its approved write shows. */
  async function expectStoppedAfterWrite(runId: string, page: string, path: string): Promise<void> {
    const run = await view(runId);
    expect(run).toMatchObject({
      status: 'COMPLETED',
      truncated: true,
      terminationReason: 'BUDGET_EXHAUSTED',
      usage: { promptTokens: 120, completionTokens: 40, totalTokens: 160, modelCalls: 3 },
      decisions: [{ path, outcome: 'COMPLETED' }],
    });
    // three model calls, the third one's read recorded, no fourth call (no "Done.")
    expect(await stepKinds(runId)).toMatchObject({ REQUEST: 3, LLM: 3, TOOL: 3, TOOL_WRITE: 1, APPROVAL: 1 });
    expect(run.stepCount).toBe(await stepTotal(runId));
    expect(await seoTitle(page)).toBe('Within budget');
    const [row] = await t.dataSource.query(
      'SELECT checkpoint, lease_token, pending_effect, finished_at FROM run WHERE id = $1',
      [runId],
    );
    expect(row).toMatchObject({ checkpoint: null, lease_token: null, pending_effect: null });
    expect(row.finished_at).not.toBeNull();
  }

  beforeAll(async () => {
    for (const input of [
      { identifier: 'budget-run', maxTokensPerRun: 150, providerOptions: { rounds: RUN_CAP_ROUNDS } },
      { identifier: 'budget-day', maxTokensPerUserPerDay: 100, providerOptions: { rounds: DAY_CAP_ROUNDS } },
    ]) {
      const res = await upsert(input);
      expect(res.errors).toBeUndefined();
      configurationIds[input.identifier] = res.data!.upsertConfiguration.id as string;
    }
  });

  it('shows the caps on Configuration, null where none is set', async () => {
    const res = await t.gql<{ configurations: Array<Record<string, unknown>> }>(
      '{ configurations { identifier maxTokensPerRun maxTokensPerUserPerDay } }',
    );
    const byId = Object.fromEntries(res.data!.configurations.map((c) => [c.identifier, c]));
    expect(byId['budget-run']).toMatchObject({ maxTokensPerRun: 150, maxTokensPerUserPerDay: null });
    expect(byId['budget-day']).toMatchObject({ maxTokensPerRun: null, maxTokensPerUserPerDay: 100 });
    expect(byId['demo-editor']).toMatchObject({ maxTokensPerRun: null, maxTokensPerUserPerDay: null });
  });

  it('sums the usage the rounds declare into Run.usage', async () => {
    await noWorker();
    const run = await startRun(t, 'alice', {
      configurationId: configurationIds['budget-day'],
      prompt: 'Read the page',
      subjectPageId: ids.pages.Home,
    });
    expect(await waitForRest(t, run.id)).toBe('COMPLETED');
    expect(await view(run.id, 'alice')).toMatchObject({
      terminationReason: 'COMPLETED',
      truncated: false,
      usage: { promptTokens: 55, completionTokens: 15, totalTokens: 70, modelCalls: 2 },
    });
    // counts only, no content: a decider without detail access (bob, AGENT_APPROVE) sees them too
    const decider = await t.gql<{ run: { usage: { totalTokens: number } } }>(
      `query($id: ID!) { run(id: $id) { usage { totalTokens } } }`,
      { id: run.id },
      'bob',
    );
    expect(decider.errors).toBeUndefined();
    expect(decider.data!.run.usage.totalTokens).toBe(70);
    // alice's 70 tokens count towards her day below
  });

  it('stops a run at its cap after an inline approval, before the next model call', async () => {
    const run = await waitingOnWrite('About');
    expect((await view(run.id)).usage.totalTokens).toBe(130);
    const res = await t.gql<{ approveRun: { path: string } }>(APPROVE, {
      input: { runId: run.id, turnDigest: run.digest },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data!.approveRun.path).toBe('INLINE');
    expect(await waitForRest(t, run.id)).toBe('COMPLETED');
    await expectStoppedAfterWrite(run.id, 'About', 'INLINE');
  });

  it('stops a run at its cap the same way when a worker carries out the recorded decision', async () => {
    const run = await waitingOnWrite('Widget');
    await pretendLiveWorker();
    const res = await t.gql<{ approveRun: { path: string; run: { status: string } } }>(APPROVE, {
      input: { runId: run.id, turnDigest: run.digest },
    });
    expect(res.data!.approveRun).toMatchObject({ path: 'DURABLE', run: { status: 'DECISION_RECORDED' } });
    expect(await t.app.get(RecordedDecisions).pickUp('test', 5)).toHaveLength(1);
    expect(await waitForRest(t, run.id)).toBe('COMPLETED');
    await expectStoppedAfterWrite(run.id, 'Widget', 'DURABLE');
    await noWorker();
  });

  it("counts the owner's earlier runs of the UTC day against the daily cap, per user", async () => {
    const start = async (as: string) => {
      const run = await startRun(t, as, {
        configurationId: configurationIds['budget-day'],
        prompt: 'Read the page',
        subjectPageId: ids.pages.Home,
      });
      expect(await waitForRest(t, run.id)).toBe('COMPLETED');
      return run.id;
    };
    // alice has used 70 today: this run's first call (50) takes her to 120, past 100
    const stopped = await start('alice');
    expect(await view(stopped)).toMatchObject({
      terminationReason: 'BUDGET_EXHAUSTED',
      truncated: true,
      usage: { totalTokens: 50, modelCalls: 1 },
    });
    expect(await stepKinds(stopped)).toMatchObject({ REQUEST: 1, LLM: 1, TOOL: 1 });
    expect((await view(stopped)).answer).toMatch(/token budget/);

    // bob's day is his own
    expect(await view(await start('bob'))).toMatchObject({ terminationReason: 'COMPLETED' });

    // alice's runs of an earlier UTC day no longer count
    await t.dataSource.query(
      `UPDATE run SET created_at = created_at - interval '1 day' WHERE owner_id = $1 AND configuration_id = $2`,
      [ids.users.alice, configurationIds['budget-day']],
    );
    expect(await view(await start('alice'))).toMatchObject({
      terminationReason: 'COMPLETED',
      usage: { totalTokens: 70, modelCalls: 2 },
    });
  });

  it('refuses a cap below 1 with BAD_USER_INPUT and writes nothing', async () => {
    const before = await t.dataSource.query('SELECT * FROM configuration ORDER BY id');
    for (const caps of [
      { maxTokensPerRun: 0 },
      { maxTokensPerRun: -5 },
      { maxTokensPerUserPerDay: 0 },
      { maxTokensPerUserPerDay: -1 },
    ]) {
      const created = await upsert({ identifier: 'budget-bad', providerOptions: { rounds: [] }, ...caps });
      expect(errorCode(created)).toBe('BAD_USER_INPUT');
      const changed = await upsert({ identifier: 'budget-run', providerOptions: { rounds: [] }, ...caps });
      expect(errorCode(changed)).toBe('BAD_USER_INPUT');
    }
    expect(await t.dataSource.query('SELECT * FROM configuration ORDER BY id')).toEqual(before);
  });

  it('counts tokens by configuration and kind, and the runs stopped by each cap, in /metrics', async () => {
    const text = await (await fetch(t.url.replace(/\/graphql$/, '/metrics'))).text();
    const valueOf = (series: string): number => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line ? Number(line.slice(series.length + 1)) : 0;
    };
    // two runs of budget-run, 120 input and 40 output tokens each
    expect(valueOf('countersign_tokens_total{configuration="budget-run",kind="input"}')).toBe(240);
    expect(valueOf('countersign_tokens_total{configuration="budget-run",kind="output"}')).toBe(80);
    expect(valueOf('countersign_runs_stopped_by_budget_total{configuration="budget-run",cap="run"}')).toBe(2);
    expect(valueOf('countersign_runs_stopped_by_budget_total{configuration="budget-day",cap="day"}')).toBe(1);
  });
});

describe('token budgets in the chat', () => {
  const { t } = useTestApp();

  const CONVERSATION = `id status lastRunId messages { role text notice }`;

  it('answers a chat turn stopped by its budget with the closing answer', async () => {
    const ids = await demoIds(t);
    // the default chat Task uses demo-editor: any first model call passes a cap of 1 token
    await t.dataSource.query(
      `UPDATE configuration SET max_tokens_per_run = 1 WHERE identifier = 'demo-editor'`,
    );
    const created = await t.gql<{ createConversation: { id: string } }>(
      `mutation($input: CreateConversationInput!) { createConversation(input: $input) { id } }`,
      { input: { pageId: ids.pages.About, languageId: 0 } },
      'alice',
    );
    const id = created.data!.createConversation.id;
    const sent = await t.gql<{ sendMessage: { status: string } }>(
      `mutation($input: SendMessageInput!) { sendMessage(input: $input) { status } }`,
      { input: { conversationId: id, text: 'Sharpen the SEO title' } },
      'alice',
    );
    expect(sent.errors).toBeUndefined();
    let conversation = {
      status: 'PROCESSING',
      lastRunId: '',
      messages: [] as Array<{ role: string; text: string }>,
    };
    await until(
      async () => {
        const res = await t.gql<{ conversation: typeof conversation }>(
          `query($id: ID!) { conversation(id: $id) { ${CONVERSATION} } }`,
          { id },
          'alice',
        );
        conversation = res.data!.conversation;
        return conversation.status !== 'PROCESSING';
      },
      20_000,
      'the chat turn to end',
    );
    const run = await t.gql<{ run: { terminationReason: string; usage: { modelCalls: number } } }>(
      `query($id: ID!) { run(id: $id) { terminationReason usage { modelCalls } } }`,
      { id: conversation.lastRunId },
      'alice',
    );
    expect(run.data!.run).toMatchObject({ terminationReason: 'BUDGET_EXHAUSTED', usage: { modelCalls: 1 } });
    expect(conversation.messages.at(-1)).toMatchObject({ role: 'ASSISTANT' });
    expect(conversation.messages.at(-1)!.text).toMatch(/token budget/);
  });
});
