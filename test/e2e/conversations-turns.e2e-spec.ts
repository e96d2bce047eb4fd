import { APPROVE, upsertConfiguration } from '../support/decisions';
import { codeOf, EVENTS, SET_SKILL, useChatApp, type Conversation } from '../support/conversations';
import { collect, until } from '../support/runs';

// Chat turns (docs/chat-and-skills.md) through the public API, on the demo data: what a turn
// sends the model (the process skill's invocation or predecessor, the language, reference
// skills), a turn that keeps the conversation busy, repairs on read, and conversationEvents.

describe('conversations and skills', () => {
  const chat = useChatApp();
  const { approveInChat, contextOf, counts, create, get, rest, runRow, send, turn, withDefaultTask } = chat;

  describe('turns and the process skill', () => {
    it('sends the invocation on turn 1, the predecessor on turns 2 and 3, the invocation again after a pick', async () => {
      const c = await create('alice', { pageId: chat.ids.pages.About, languageId: 1, skill: 'seo-process' });

      // turn 1: a new start with the invocation, no predecessor
      let now = await turn('alice', c.id, 'Optimise the SEO of this page');
      expect(now.status).toBe('AWAITING_APPROVAL');
      const r1 = now.lastRunId!;
      expect(now.approvalRunId).toBe(r1);
      expect(now.skill!.startPending).toBe(false);
      const invocation = {
        skillId: chat.skillIds['seo-process'],
        identifier: 'seo-process',
        subject: { table: 'pages', id: Number(chat.ids.pages.About), languageId: 1 },
        // the process pins the approved version it starts with
        skillVersionId: expect.any(Number),
        version: 1,
      };
      expect(await runRow(r1)).toMatchObject({ predecessor_run_id: null, skill_invocation: invocation });
      const ctx1 = await contextOf(r1);
      expect(ctx1.invocation).toEqual(invocation);
      expect(ctx1.process).toMatchObject({ ...invocation, misses: 0 });
      expect(ctx1.subject).toEqual({ pageId: Number(chat.ids.pages.About), languageId: 1 });
      const system = ctx1.messages[0];
      expect(system.role).toBe('system');
      expect(system.content).toContain(`page ${chat.ids.pages.About}`);
      expect(system.content).toContain('The page language is 1 (Deutsch, de)');
      // a process run is decided only in the chat, only by its initiator
      const digest = now.pending!.turnDigest;
      for (const as of ['alice', 'bob']) {
        const res = await chat.t.gql(APPROVE, { input: { runId: r1, turnDigest: digest } }, as);
        expect(codeOf(res)).toBe('PROCESS_RUN_DECIDED_IN_CHAT');
      }
      now = await approveInChat('alice', now);
      expect(now.status).toBe('IDLE');
      expect(now.messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT']);
      expect((await runRow(r1)).status).toBe('COMPLETED');

      // turns 2 and 3 name their predecessor and carry no invocation; the pin is passed on
      let previous = r1;
      for (const text of ['And the description?', 'Thanks, go on']) {
        now = await turn('alice', c.id, text);
        const run = now.lastRunId!;
        expect(run).not.toBe(previous);
        expect(await runRow(run)).toMatchObject({ predecessor_run_id: previous, skill_invocation: null });
        const ctx = await contextOf(run);
        expect(ctx.invocation).toBeNull();
        expect(ctx.process).toMatchObject({ skillId: chat.skillIds['seo-process'], misses: 0 });
        // the history goes with the turn (users' and the assistant's messages)
        const contents = (ctx.messages as Array<{ role: string; content: string }>).map((m) => m.content);
        expect(contents).toContain('Optimise the SEO of this page');
        now = await approveInChat('alice', now);
        previous = run;
      }

      // picking the process skill again starts it anew: invocation, no predecessor
      const picked = await chat.t.gql<{ setConversationSkill: Conversation }>(
        SET_SKILL,
        { input: { conversationId: c.id, skill: 'seo-process' } },
        'alice',
      );
      expect(picked.data!.setConversationSkill.skill).toMatchObject({ startPending: true });
      expect(picked.data!.setConversationSkill.messages).toHaveLength(now.messages.length); // sends no message
      now = await turn('alice', c.id, 'Start over');
      const r4 = now.lastRunId!;
      expect(await runRow(r4)).toMatchObject({ predecessor_run_id: null, skill_invocation: invocation });
      expect(now.skill!.startPending).toBe(false);
    }, 60_000);

    it('keeps the conversation’s language for a turn on the same page without one', async () => {
      const c = await create('alice', { pageId: chat.ids.pages.About, languageId: 1 });
      let now = await turn('alice', c.id, 'Hello', { pageId: chat.ids.pages.About, module: 'page' });
      expect(now.viewContext).toEqual({ pageId: chat.ids.pages.About, languageId: 1, module: 'page' });
      expect((await contextOf(now.lastRunId!)).subject).toEqual({
        pageId: Number(chat.ids.pages.About),
        languageId: 1,
      });
      expect((await approveInChat('alice', now)).status).toBe('IDLE');
      now = await turn('alice', c.id, 'Now the home page', { pageId: chat.ids.pages.Home });
      expect(now.viewContext).toEqual({ pageId: chat.ids.pages.Home, languageId: null, module: 'page' });
      const ctx = await contextOf(now.lastRunId!);
      expect(ctx.subject).toEqual({ pageId: Number(chat.ids.pages.Home), languageId: 0 });
      expect(ctx.messages[0].content).not.toContain('The page language');
    }, 30_000);

    it('names the language in the system prompt only where the user may edit it', async () => {
      const c = await create('dave', { pageId: chat.ids.pages.Home });
      const now = await turn('dave', c.id, 'What is on this page?');
      const system = (await contextOf(now.lastRunId!)).messages[0].content as string;
      expect(system).toContain(`page ${chat.ids.pages.Home}`);
      expect(system).not.toContain('The page language');
    });

    it('sends a non-process skill as reference data on every turn, once', async () => {
      const c = await create('alice', { pageId: chat.ids.pages.Home, languageId: 0, skill: 'tone-of-voice' });
      let now = await turn('alice', c.id, 'Rewrite the intro');
      const ctx = await contextOf(now.lastRunId!);
      expect(ctx.skills).toEqual(['tone-of-voice']);
      expect(ctx.process).toBeNull();
      expect((await approveInChat('alice', now)).status).toBe('IDLE');
      now = await turn('alice', c.id, 'Again');
      expect((await contextOf(now.lastRunId!)).skills).toEqual(['tone-of-voice']);
    }, 30_000);
  });

  describe('busy turns and repairs', () => {
    it('refuses a skill pick while a turn runs (CONVERSATION_BUSY) and keeps the skill after the turn', async () => {
      await upsertConfiguration(chat.t, {
        identifier: 'slow-chat',
        providerOptions: { rounds: [{ text: 'Done.', delayMs: 1500 }] },
      });
      await withDefaultTask('slow-chat', async () => {
        const c = await create('alice', { pageId: chat.ids.pages.Home });
        const sent = await send('alice', c.id, 'Take your time');
        expect(sent.data!.sendMessage.status).toBe('PROCESSING');
        const before = await counts();
        const pick = await chat.t.gql(
          SET_SKILL,
          { input: { conversationId: c.id, skill: 'seo-process' } },
          'alice',
        );
        expect(codeOf(pick)).toBe('CONVERSATION_BUSY');
        expect(codeOf(await send('alice', c.id, 'another'))).toBe('CONVERSATION_BUSY');
        expect(await counts()).toEqual(before);
        const done = await rest('alice', c.id);
        expect(done.status).toBe('IDLE');
        expect(done.skill).toBeNull();
        expect(done.messages.map((m) => [m.role, m.text])).toEqual([
          ['USER', 'Take your time'],
          ['ASSISTANT', 'Done.'],
        ]);
      });
    }, 30_000);

    it('repairs a conversation stuck in PROCESSING from its run’s status when read', async () => {
      const c = await create('alice', { pageId: chat.ids.pages.Home });
      const waiting = await turn('alice', c.id, 'Fix the title');
      const done = await approveInChat('alice', waiting);
      // a process that died between the run's settle and the conversation's update
      await chat.t.dataSource.query(
        `UPDATE conversation SET status = 'PROCESSING', active_run_id = $2 WHERE id = $1`,
        [c.id, done.lastRunId],
      );
      const repaired = await get('alice', c.id);
      expect(repaired.status).toBe('IDLE');
      expect(repaired.messages.length).toBeGreaterThan(done.messages.length);
      expect(await send('alice', c.id, 'Next')).toMatchObject({
        data: { sendMessage: { status: 'PROCESSING' } },
      });
    });
  });

  describe('conversationEvents', () => {
    it('streams MESSAGE, STATUS and PROGRESS to the owner only', async () => {
      const c = await create('alice', { pageId: chat.ids.pages.Home });
      const other = collect<unknown>(chat.t.ws('carol'), EVENTS, { id: c.id });
      await other.done;
      expect(JSON.stringify(other.errors)).toContain('NOT_FOUND');

      type Frame = {
        conversationEvents: {
          kind: string;
          status: string;
          stepCount: number | null;
          message: { role: string } | null;
        };
      };
      const mine = collect<Frame>(chat.t.ws('alice'), EVENTS, { id: c.id });
      await new Promise((r) => setTimeout(r, 200));
      await send('alice', c.id, 'Fix the title');
      await until(
        () =>
          mine.events.some(
            (e) =>
              e.conversationEvents.kind === 'STATUS' && e.conversationEvents.status === 'AWAITING_APPROVAL',
          ),
        15_000,
        'AWAITING_APPROVAL on the stream',
      );
      mine.unsubscribe();
      const frames = mine.events.map((e) => e.conversationEvents);
      expect(frames.find((f) => f.kind === 'MESSAGE')?.message?.role).toBe('USER');
      expect(frames.some((f) => f.kind === 'STATUS' && f.status === 'PROCESSING')).toBe(true);
      const progress = frames.filter((f) => f.kind === 'PROGRESS').map((f) => f.stepCount!);
      expect(progress.length).toBeGreaterThan(0);
      expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    });
  });
});
