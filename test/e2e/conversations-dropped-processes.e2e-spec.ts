import { SUBMIT, useChatApp, type Conversation } from '../support/conversations';

// Dropped processes in the chat (docs/chat-and-skills.md) through the public API, on the demo
// data: each cause gives one notice before the answer, in the user's language, that is never
// sent to the model.

describe('conversations and skills', () => {
  const chat = useChatApp();
  const { approveInChat, contextOf, create, rest, runRow, stepKinds, turn } = chat;

  describe('dropped processes', () => {
    beforeAll(async () => {
      // bob reads his notices in German: he gets the chat for these tests
      await chat.t.dataSource.query(
        `INSERT INTO group_member (user_id, group_id)
           SELECT u.id, g.id FROM app_user u, access_group g WHERE u.username = 'bob' AND g.name = 'editors'`,
      );
    });

    /** A conversation with a process turn waiting for its approval. */
    async function processStarted(as: string): Promise<Conversation> {
      const c = await create(as, { pageId: chat.ids.pages.About, languageId: 0, skill: 'seo-process' });
      const now = await turn(as, c.id, 'Optimise this page');
      expect(now.status).toBe('AWAITING_APPROVAL');
      return now;
    }

    const causes: Record<string, (as: string) => Promise<{ c: Conversation; undo?: () => Promise<void> }>> = {
      DETACHED: async (as) => {
        const c = await processStarted(as);
        await chat.t.dataSource.query(`UPDATE skill SET enabled = false WHERE identifier = 'seo-process'`);
        return {
          c,
          undo: async () => void (await chat.t.dataSource.query(`UPDATE skill SET enabled = true`)),
        };
      },
      CONFIGURATION_CHANGED: async (as) => {
        const c = await processStarted(as);
        await chat.t.dataSource.query(
          `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = 'demo-question')
            WHERE identifier = 'default'`,
        );
        return {
          c,
          undo: async () =>
            void (await chat.t.dataSource.query(
              `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = 'demo-editor')
                WHERE identifier = 'default'`,
            )),
        };
      },
      PREDECESSOR_GONE: async (as) => {
        const started = await processStarted(as);
        const c = await approveInChat(as, started);
        await chat.t.dataSource.query('DELETE FROM run WHERE id = $1', [c.lastRunId]);
        return { c };
      },
      REFUSED_TOO_OFTEN: async (as) => {
        // each new message withdraws the waiting proposal: three turns in a row not continued
        let c = await processStarted(as);
        for (let i = 0; i < 2; i += 1) {
          c = await turn(as, c.id, `Something else ${i}`);
          expect(c.status).toBe('AWAITING_APPROVAL');
          expect((await runRow(c.lastRunId!)).dropped_process).toBeNull();
        }
        return { c };
      },
    };

    const texts: Record<string, Record<string, string>> = {
      en: {
        DETACHED: 'its skill is no longer available',
        CONFIGURATION_CHANGED: 'different configuration',
        PREDECESSOR_GONE: 'no longer available',
        REFUSED_TOO_OFTEN: 'three times in a row',
      },
      de: {
        DETACHED: 'nicht mehr verfügbar',
        CONFIGURATION_CHANGED: 'anderen Konfiguration',
        PREDECESSOR_GONE: 'nicht mehr verfügbar',
        REFUSED_TOO_OFTEN: 'dreimal hintereinander',
      },
    };

    for (const reason of Object.keys(causes)) {
      for (const [as, locale] of [
        ['alice', 'en'],
        ['bob', 'de'],
      ] as const) {
        it(`${reason}: one notice before the answer, in ${locale} for ${as}, never sent to the model`, async () => {
          const { c, undo } = await causes[reason]!(as);
          let dropped: Conversation;
          try {
            dropped = await turn(as, c.id, 'Continue please');
          } finally {
            await undo?.();
          }
          const run = dropped.lastRunId!;
          expect((await runRow(run)).dropped_process).toEqual({ reason });
          expect((await runRow(run)).process_pin).toBeNull();
          expect(await stepKinds(run)).toContain('DROPPED');
          const notices = dropped.messages.filter((m) => m.notice === 'PROCESS_DROPPED');
          expect(notices).toHaveLength(1);
          expect(notices[0]!.noticeArgs).toEqual({ reason });
          expect(notices[0]!.text).toContain(texts[locale]![reason]!);
          // the notice comes right after the user's message of that turn, before any answer
          const userIndex = dropped.messages.findIndex((m) => m.role === 'USER' && m.runId === run);
          expect(dropped.messages[userIndex + 1]!.notice).toBe('PROCESS_DROPPED');
          // the run's own view
          const seen = await chat.t.gql<{ run: { droppedProcess: { reason: string } | null } }>(
            `query($id: ID!) { run(id: $id) { droppedProcess { reason } } }`,
            { id: run },
            as,
          );
          expect(seen.data!.run.droppedProcess).toEqual({ reason });
          // neither this turn's model input nor the next one's holds the notice
          let next = dropped;
          if (next.status === 'AWAITING_APPROVAL') next = await approveInChat(as, next);
          if (next.status === 'AWAITING_INPUT') {
            const input = {
              conversationId: c.id,
              turnDigest: next.pending!.turnDigest,
              values: { tone: 'casual' },
            };
            expect((await chat.t.gql(SUBMIT, { input }, as)).errors).toBeUndefined();
            expect((await rest(as, c.id)).status).toBe('IDLE');
          }
          next = await turn(as, c.id, 'And now?');
          expect((await runRow(next.lastRunId!)).dropped_process).toBeNull();
          for (const r of [run, next.lastRunId!]) {
            const input = JSON.stringify((await contextOf(r)).messages);
            expect(input).not.toContain(notices[0]!.text);
            expect(input).not.toContain('PROCESS_DROPPED');
          }
          expect(next.messages.filter((m) => m.notice === 'PROCESS_DROPPED')).toHaveLength(1);
        }, 60_000);
      }
    }
  });
});
