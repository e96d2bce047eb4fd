import { recordScriptedRequests, type ProviderRequest } from '../../src/agent';
import { until } from '../support/runs';
import { useTestApp } from '../support/suite';

// Process skills that guide the model (docs/chat-and-skills.md "How a skill reaches a run",
// "Skill versions"): what the provider receives, the pinned version, what ends a process.

const FIELDS = `id status lastRunId skill { identifier isProcess startPending }
  messages { role text notice noticeArgs runId } pending { turnDigest }`;
const CREATE = `mutation($input: CreateConversationInput!) { createConversation(input: $input) { ${FIELDS} } }`;
const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { ${FIELDS} } }`;
const SET_SKILL = `mutation($input: SetConversationSkillInput!) { setConversationSkill(input: $input) { ${FIELDS} } }`;
const DECIDE = `mutation($input: DecideConversationInput!) { decideConversationApproval(input: $input) { ${FIELDS} } }`;
const GET = `query($id: ID!) { conversation(id: $id) { ${FIELDS} } }`;
const CATALOGUE = `{ skillCatalogue { identifier isProcess skillId version } }`;
const UPSERT = `mutation($input: SkillInput!) { upsertSkill(input: $input) { id approvedVersion } }`;
const VERSIONS = `query($skillId: ID!) { skillVersions(skillId: $skillId) {
  id version state body authorId approvedBy withdrawnBy } }`;
const APPROVE_VERSION = `mutation($id: ID!) { approveSkillVersion(id: $id) { id version state approvedBy } }`;
const WITHDRAW_VERSION = `mutation($id: ID!) { withdrawSkillVersion(id: $id) { id version state withdrawnBy } }`;
const RUN = `query($id: ID!) { run(id: $id) { isProcessRun skillVersion } }`;

interface Conversation {
  id: string;
  status: string;
  lastRunId: string | null;
  skill: { identifier: string; isProcess: boolean; startPending: boolean } | null;
  messages: Array<{
    role: string;
    text: string;
    notice: string | null;
    noticeArgs: unknown;
    runId: string | null;
  }>;
  pending: { turnDigest: string } | null;
}
interface Version {
  id: string;
  version: number;
  state: string;
  body: string;
  authorId: string | null;
  approvedBy: string | null;
  withdrawnBy: string | null;
}

const SEO_V1 = 'Work step by step: read the page, propose a better SEO title and description';
const SEO_V2 = 'Version two: first check the page title length, then propose a new SEO title.';

describe('process skills that guide the model, with approved, pinned versions', () => {
  const { t, ids } = useTestApp({}, { beforeClose: () => recordScriptedRequests(null) });
  let seoSkillId: string;
  /** Every request the scripted provider was sent in this file. */
  const requests: ProviderRequest[] = [];

  beforeAll(async () => {
    [{ id: seoSkillId }] = await t.dataSource.query(
      `SELECT id::text FROM skill WHERE identifier = 'seo-process'`,
    );
    // a second admin, for four-eyes on skill versions
    await t.dataSource.query(`UPDATE app_user SET is_admin = true WHERE username = 'carol'`);
    recordScriptedRequests((r) => requests.push(r));
  }, 60_000);

  const codeOf = (res: { errors?: Array<{ extensions?: Record<string, unknown> }> }) =>
    res.errors?.[0]?.extensions?.code;

  const get = async (as: string, id: string): Promise<Conversation> =>
    (await t.gql<{ conversation: Conversation }>(GET, { id }, as)).data!.conversation;

  async function rest(as: string, id: string): Promise<Conversation> {
    let last: Conversation | null = null;
    await until(
      async () => (last = await get(as, id)).status !== 'PROCESSING',
      20_000,
      `conversation ${id} to rest`,
    );
    return last!;
  }

  async function create(as: string, input: Record<string, unknown>): Promise<Conversation> {
    const res = await t.gql<{ createConversation: Conversation }>(CREATE, { input }, as);
    if (!res.data?.createConversation) throw new Error(`create: ${JSON.stringify(res.errors)}`);
    return res.data.createConversation;
  }

  async function turn(as: string, id: string, text: string): Promise<Conversation> {
    const res = await t.gql<{ sendMessage: Conversation }>(SEND, { input: { conversationId: id, text } }, as);
    if (!res.data?.sendMessage) throw new Error(`send: ${JSON.stringify(res.errors)}`);
    return rest(as, id);
  }

  async function approveInChat(as: string, c: Conversation): Promise<Conversation> {
    const input = { conversationId: c.id, turnDigest: c.pending!.turnDigest, approve: true };
    const res = await t.gql<{ decideConversationApproval: Conversation }>(DECIDE, { input }, as);
    if (!res.data?.decideConversationApproval) throw new Error(`decide: ${JSON.stringify(res.errors)}`);
    return rest(as, c.id);
  }

  /** The system messages of the first request whose last user message is `prompt`. */
  function systemSentWith(prompt: string): string[] {
    const request = requests.find((r) => {
      const users = r.messages.filter((m) => m.role === 'user');
      return users[users.length - 1]?.content === prompt;
    });
    if (!request) throw new Error(`no provider request for "${prompt}"`);
    return request.messages.filter((m) => m.role === 'system').map((m) => m.content);
  }

  /** The instructions of the running process as the provider received them (or undefined). */
  const processBlockSentWith = (prompt: string): string | undefined =>
    systemSentWith(prompt).find((m) => m.startsWith('You are guiding the user through the process'));

  async function contextStep(runId: string): Promise<Record<string, any>> {
    const [row] = await t.dataSource.query(
      `SELECT payload FROM run_step WHERE run_id = $1 AND kind = 'CONTEXT'`,
      [runId],
    );
    return row.payload;
  }

  async function versions(): Promise<Version[]> {
    const res = await t.gql<{ skillVersions: Version[] }>(VERSIONS, { skillId: seoSkillId }, 'admin');
    if (!res.data?.skillVersions) throw new Error(`skillVersions: ${JSON.stringify(res.errors)}`);
    return res.data.skillVersions;
  }

  describe('the process guidance reaches the model', () => {
    it.each(['NONE', 'METADATA', 'REDACTED', 'FULL'])(
      'on turns 1-3, as instructions naming the page and language, apart from reference data (%s)',
      async (level) => {
        await t.dataSource.query(
          `UPDATE configuration SET privacy_level = $1 WHERE identifier = 'demo-editor'`,
          [level],
        );
        const c = await create('alice', {
          pageId: ids.pages.About,
          languageId: 1,
          skill: 'seo-process',
        });
        for (const n of [1, 2, 3]) {
          const prompt = `Turn ${n} at ${level}`;
          let now = await turn('alice', c.id, prompt);
          expect(now.status).toBe('AWAITING_APPROVAL');
          const block = processBlockSentWith(prompt);
          expect(block).toBeDefined();
          expect(block).toContain(SEO_V1);
          expect(block).toContain('version 1');
          expect(block).toContain(`page ${ids.pages.About}`);
          expect(block).toContain('language 1');
          // the forced skill stays fenced reference data, and carries no process guidance
          const reference = systemSentWith(prompt).find((m) => m.startsWith('Reference data'));
          expect(reference).toContain('<skill identifier="tone-of-voice"');
          expect(reference).not.toContain(SEO_V1);
          // the CONTEXT step names the version at every privacy level
          const ctx = await contextStep(now.lastRunId!);
          expect(ctx.processRun).toBe(true);
          expect(ctx.processVersion).toBe(1);
          now = await approveInChat('alice', now);
          expect(now.status).toBe('IDLE');
        }
      },
      60_000,
    );

    afterAll(async () => {
      await t.dataSource.query(
        `UPDATE configuration SET privacy_level = 'METADATA' WHERE identifier = 'demo-editor'`,
      );
    });
  });

  describe('removing or replacing a process skill ends the process', () => {
    it.each([
      ['removed', null],
      ['replaced by a non-process skill', 'tone-of-voice'],
    ])(
      '%s: the next turn runs without it, with the history',
      async (_label, next) => {
        const c = await create('alice', { pageId: ids.pages.About, languageId: 0, skill: 'seo-process' });
        const first = await approveInChat(
          'alice',
          await turn('alice', c.id, `Start the process (${_label})`),
        );
        expect(first.status).toBe('IDLE');
        const set = await t.gql<{ setConversationSkill: Conversation }>(
          SET_SKILL,
          { input: { conversationId: c.id, skill: next } },
          'alice',
        );
        expect(set.errors).toBeUndefined();
        const prompt = `After the change (${_label})`;
        const now = await turn('alice', c.id, prompt);
        const [run] = await t.dataSource.query(
          'SELECT predecessor_run_id, process_pin, dropped_process FROM run WHERE id = $1',
          [now.lastRunId],
        );
        expect(run).toEqual({ predecessor_run_id: null, process_pin: null, dropped_process: null });
        expect(processBlockSentWith(prompt)).toBeUndefined();
        // the conversation's history still goes with the turn
        const request = requests.find((r) =>
          r.messages.some((m) => m.role === 'user' && m.content === prompt),
        )!;
        expect(request.messages.some((m) => m.content === `Start the process (${_label})`)).toBe(true);
        // a run that is no process run may be decided outside the chat too
        const res = await t.gql<{ run: { isProcessRun: boolean } }>(RUN, { id: now.lastRunId }, 'alice');
        expect(res.data!.run.isProcessRun).toBe(false);
      },
      30_000,
    );
  });

  describe('skill versions', () => {
    let draft: Version;

    it('writes an edit as a new draft; the catalogue and runs keep the approved version', async () => {
      const before = await versions();
      expect(before.map((v) => [v.version, v.state, v.authorId])).toEqual([[1, 'APPROVED', null]]);
      const edit = {
        identifier: 'seo-process',
        name: 'Optimise the SEO of this page',
        description: 'A guided process: review the page, propose SEO title and description, apply them.',
        body: SEO_V2,
        isProcess: true,
      };
      const res = await t.gql<{ upsertSkill: { approvedVersion: number } }>(UPSERT, { input: edit }, 'admin');
      expect(res.errors).toBeUndefined();
      expect(res.data!.upsertSkill.approvedVersion).toBe(1);
      // the same edit again writes no further version
      await t.gql(UPSERT, { input: edit }, 'admin');
      const after = await versions();
      expect(after.map((v) => [v.version, v.state])).toEqual([
        [2, 'DRAFT'],
        [1, 'APPROVED'],
      ]);
      draft = after[0]!;
      expect(draft.body).toBe(SEO_V2);
      expect(draft.authorId).toBe(ids.users.admin);
      const catalogue = await t.gql<{ skillCatalogue: Array<{ identifier: string; version: number }> }>(
        CATALOGUE,
        {},
        'alice',
      );
      expect(catalogue.data!.skillCatalogue.find((e) => e.identifier === 'seo-process')?.version).toBe(1);
    });

    it('refuses its author’s approval, a non-admin, an unknown version, and writes nothing', async () => {
      const rows = async () =>
        t.dataSource.query(`SELECT id, state, approved_by, withdrawn_by FROM skill_version ORDER BY id`);
      const before = await rows();
      expect(codeOf(await t.gql(APPROVE_VERSION, { id: draft.id }, 'admin'))).toBe('SELF_APPROVAL_DENIED');
      expect(codeOf(await t.gql(APPROVE_VERSION, { id: draft.id }, 'alice'))).toBe('FORBIDDEN');
      expect(codeOf(await t.gql(WITHDRAW_VERSION, { id: draft.id }, 'alice'))).toBe('FORBIDDEN');
      expect(codeOf(await t.gql(VERSIONS, { skillId: seoSkillId }, 'alice'))).toBe('FORBIDDEN');
      expect(codeOf(await t.gql(APPROVE_VERSION, { id: '999999' }, 'carol'))).toBe('NOT_FOUND');
      expect(codeOf(await t.gql(VERSIONS, { skillId: '999999' }, 'carol'))).toBe('NOT_FOUND');
      const v1 = (await versions()).find((v) => v.version === 1)!;
      expect(codeOf(await t.gql(APPROVE_VERSION, { id: v1.id }, 'carol'))).toBe('SKILL_VERSION_NOT_DRAFT');
      expect(await rows()).toEqual(before);
    });

    it('keeps the pinned version for a running process after a newer one is approved; new processes take the new one', async () => {
      const c = await create('alice', { pageId: ids.pages.About, languageId: 1, skill: 'seo-process' });
      let now = await approveInChat('alice', await turn('alice', c.id, 'Pinned turn 1'));
      const r1 = now.lastRunId!;

      const approved = await t.gql<{ approveSkillVersion: Version }>(
        APPROVE_VERSION,
        { id: draft.id },
        'carol',
      );
      expect(approved.data!.approveSkillVersion).toMatchObject({
        version: 2,
        state: 'APPROVED',
        approvedBy: ids.users.carol,
      });
      expect(codeOf(await t.gql(APPROVE_VERSION, { id: draft.id }, 'carol'))).toBe('SKILL_VERSION_NOT_DRAFT');
      const catalogue = await t.gql<{ skillCatalogue: Array<{ identifier: string; version: number }> }>(
        CATALOGUE,
        {},
        'alice',
      );
      expect(catalogue.data!.skillCatalogue.find((e) => e.identifier === 'seo-process')?.version).toBe(2);

      now = await turn('alice', c.id, 'Pinned turn 2');
      const r2 = now.lastRunId!;
      const block = processBlockSentWith('Pinned turn 2')!;
      expect(block).toContain(SEO_V1);
      expect(block).not.toContain(SEO_V2);
      expect(block).toContain('version 1');
      expect((await contextStep(r2)).processVersion).toBe(1);
      for (const id of [r1, r2]) {
        const run = await t.gql<{ run: { skillVersion: number } }>(RUN, { id }, 'alice');
        expect(run.data!.run.skillVersion).toBe(1);
      }
      await approveInChat('alice', now);

      const fresh = await create('alice', { pageId: ids.pages.About, languageId: 1, skill: 'seo-process' });
      const started = await turn('alice', fresh.id, 'A new process');
      expect(processBlockSentWith('A new process')).toContain(SEO_V2);
      const run = await t.gql<{ run: { skillVersion: number } }>(RUN, { id: started.lastRunId }, 'alice');
      expect(run.data!.run.skillVersion).toBe(2);
      await approveInChat('alice', started);

      // a withdrawn pinned version drops the process at its next turn, with its own reason
      const v1 = (await versions()).find((v) => v.version === 1)!;
      const withdrawn = await t.gql<{ withdrawSkillVersion: Version }>(
        WITHDRAW_VERSION,
        { id: v1.id },
        'admin',
      );
      expect(withdrawn.data!.withdrawSkillVersion).toMatchObject({
        state: 'WITHDRAWN',
        withdrawnBy: ids.users.admin,
      });
      expect(codeOf(await t.gql(WITHDRAW_VERSION, { id: v1.id }, 'admin'))).toBe('SKILL_VERSION_WITHDRAWN');

      now = await turn('alice', c.id, 'Pinned turn 3');
      const r3 = now.lastRunId!;
      const [row] = await t.dataSource.query('SELECT process_pin, dropped_process FROM run WHERE id = $1', [
        r3,
      ]);
      expect(row).toEqual({ process_pin: null, dropped_process: { reason: 'VERSION_WITHDRAWN' } });
      expect(processBlockSentWith('Pinned turn 3')).toBeUndefined();
      const notices = now.messages.filter((m) => m.notice === 'PROCESS_DROPPED');
      expect(notices).toHaveLength(1);
      expect(notices[0]!.noticeArgs).toEqual({ reason: 'VERSION_WITHDRAWN' });
      expect(notices[0]!.text).toContain('withdrawn');

      // the process on version 2 goes on
      await turn('alice', fresh.id, 'Still on version 2');
      expect(processBlockSentWith('Still on version 2')).toContain(SEO_V2);
    }, 60_000);
  });
});
