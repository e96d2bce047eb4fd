import { useTestApp } from '../support/suite';
import { upsertConfiguration } from '../support/decisions';
import { collect, until, waitForRest } from '../support/runs';
import type { ConversationEvent, RunEvent, RunProgressEvent, TextDelta } from '../support/generated/schema';

// Answers stream to their reader as the model writes them (docs/streaming.md, "Text deltas").

const CREATE = `mutation($input: CreateConversationInput!) { createConversation(input: $input) { id } }`;
const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { id lastRunId } }`;
const EVENTS = `subscription($id: ID!) { conversationEvents(conversationId: $id) {
  kind status message { role text runId } delta { messageId turn offset text final } } }`;
const RUN_EVENTS = `subscription($runId: ID!) { runEvents(runId: $runId) {
  kind runId outcome finalContent delta { messageId turn offset text final } } }`;
const RUN_PROGRESS = `subscription($runId: ID!) { runProgress(runId: $runId) { kind runId stepCount status turn keepAlive } }`;

type Delta = Pick<TextDelta, 'messageId' | 'turn' | 'offset' | 'text' | 'final'>;
type ChatFrame = {
  conversationEvents: Pick<ConversationEvent, 'kind' | 'status'> & {
    message: { role: string; text: string; runId: string | null } | null;
    delta: Delta | null;
  };
};
type TraceFrame = {
  runEvents: Pick<RunEvent, 'kind' | 'runId' | 'outcome' | 'finalContent'> & { delta: Delta | null };
};
type ProgressFrame = { runProgress: Omit<RunProgressEvent, '__typename'> };

const ANSWER =
  'Streaming answers arrive piece by piece, so the reader sees the text grow while the model is still writing it.';

/** The deltas of a stream, checked contiguous from offset 0; returns the assembled text. */
function assemble(deltas: Delta[]): string {
  let text = '';
  for (const d of deltas) {
    expect(d.offset).toBe(text.length);
    text += d.text;
  }
  return text;
}

describe('text deltas', () => {
  // why: a window of about three chunks, so coalescing shows in the count of events.
  // With REDIS_URL set the events, and the request for the text so far, go through Redis.
  const { t } = useTestApp({
    TEXT_DELTA_COALESCE_MS: '150',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  });

  beforeAll(async () => {
    await upsertConfiguration(t, {
      identifier: 'streamer',
      privacyLevel: 'NONE',
      providerOptions: { rounds: [{ text: ANSWER, chunks: 24, chunkDelayMs: 60 }] },
    });
    await t.dataSource.query(
      `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = 'streamer')
        WHERE identifier = 'default'`,
    );
  }, 60_000);

  async function startTurn(): Promise<{ conversationId: string; send: () => Promise<string> }> {
    const c = await t.gql<{ createConversation: { id: string } }>(CREATE, { input: {} }, 'alice');
    const conversationId = c.data!.createConversation.id;
    return {
      conversationId,
      send: async () => {
        const res = await t.gql<{ sendMessage: { lastRunId: string } }>(
          SEND,
          { input: { conversationId, text: 'Tell me about streaming' } },
          'alice',
        );
        if (!res.data) throw new Error(JSON.stringify(res.errors));
        return res.data.sendMessage.lastRunId;
      },
    };
  }

  it('the owner and admins get coalesced deltas that assemble to the answer; runProgress gets no character', async () => {
    const { conversationId, send } = await startTurn();
    const chat = collect<ChatFrame>(t.ws('alice'), EVENTS, { id: conversationId });
    await new Promise((r) => setTimeout(r, 200));
    const runId = await send();
    const trace = collect<TraceFrame>(t.ws('admin'), RUN_EVENTS, { runId });
    const progress = collect<ProgressFrame>(t.ws('bob'), RUN_PROGRESS, { runId });
    expect(await waitForRest(t, runId, 20_000)).toBe('COMPLETED');
    await until(
      () => chat.events.some((e) => e.conversationEvents.delta?.final === true),
      10_000,
      'the final delta',
    );
    await trace.done;
    chat.unsubscribe();
    progress.unsubscribe();

    const deltas = chat.events.map((e) => e.conversationEvents.delta).filter((d): d is Delta => d !== null);
    expect(assemble(deltas)).toBe(ANSWER);
    expect(deltas.map((d) => d.messageId)).toEqual(deltas.map(() => runId));
    const [{ turn }] = await t.dataSource.query('SELECT turn FROM run WHERE id = $1', [runId]);
    expect(deltas.map((d) => d.turn)).toEqual(deltas.map(() => turn));
    expect(deltas.filter((d) => d.final)).toHaveLength(1);
    expect(deltas[deltas.length - 1]!.final).toBe(true);
    // coalesced: fewer events than the provider's 24 chunks, but more than one
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.length).toBeLessThan(24);

    // admins: the deltas they were subscribed for, contiguous, ending with the final one
    const traced = trace.events.map((e) => e.runEvents.delta).filter((d): d is Delta => d !== null);
    expect(traced.length).toBeGreaterThan(0);
    const first = traced[0]!.offset;
    expect(first + assemble(traced.map((d) => ({ ...d, offset: d.offset - first })))).toBeTruthy();
    expect(ANSWER.endsWith(traced.map((d) => d.text).join(''))).toBe(true);
    expect(traced[traced.length - 1]!.final).toBe(true);

    // count-only approvers: no TEXT_DELTA and no character of the answer
    expect(progress.errors).toEqual([]);
    expect(progress.events.length).toBeGreaterThan(0);
    expect(JSON.stringify(progress.events)).not.toMatch(/Streaming|piece|model is still/);

    // the deltas are never stored: under NONE no step carries the text
    const steps = await t.dataSource.query('SELECT payload FROM run_step WHERE run_id = $1', [runId]);
    expect(JSON.stringify(steps)).not.toContain('piece by piece');
  }, 40_000);

  it('a reader who reconnects mid-answer gets the text so far, then the rest: exactly once', async () => {
    const { conversationId, send } = await startTurn();
    const firstClient = t.ws('alice');
    const first = collect<ChatFrame>(firstClient, EVENTS, { id: conversationId });
    await new Promise((r) => setTimeout(r, 200));
    const runId = await send();
    const deltasOf = (frames: ChatFrame[]) =>
      frames.map((e) => e.conversationEvents.delta).filter((d): d is Delta => d !== null);
    await until(
      () => deltasOf(first.events).reduce((n, d) => n + d.text.length, 0) > ANSWER.length / 3,
      15_000,
      'a third of the answer',
    );
    await firstClient.dispose();
    const before = assemble(deltasOf(first.events));
    expect(before.length).toBeLessThan(ANSWER.length);

    const second = collect<ChatFrame>(t.ws('alice'), EVENTS, { id: conversationId });
    expect(await waitForRest(t, runId, 20_000)).toBe('COMPLETED');
    await until(() => deltasOf(second.events).some((d) => d.final), 10_000, 'the final delta');
    second.unsubscribe();
    const resumed = deltasOf(second.events);
    // the snapshot: the text so far as one delta at offset 0, at least what the first client saw
    expect(resumed[0]!.offset).toBe(0);
    expect(resumed[0]!.text.startsWith(before)).toBe(true);
    expect(resumed[0]!.text.length).toBeLessThan(ANSWER.length);
    expect(assemble(resumed)).toBe(ANSWER);
  }, 40_000);

  describe('an answer cut short', () => {
    const CANCEL = `mutation($runId: ID!) { cancelRun(runId: $runId) { id status } }`;

    async function cutShort(
      rounds: unknown[],
      cut: (runId: string, seen: () => number) => Promise<void>,
    ): Promise<{ runId: string; frames: ChatFrame['conversationEvents'][] }> {
      // why: the API refuses the scripted provider's `error` test aid; it is written in SQL.
      await t.dataSource.query(
        `UPDATE configuration SET provider_options = $1 WHERE identifier = 'streamer'`,
        [JSON.stringify({ rounds })],
      );
      const { conversationId, send } = await startTurn();
      const chat = collect<ChatFrame>(t.ws('alice'), EVENTS, { id: conversationId });
      await new Promise((r) => setTimeout(r, 200));
      const runId = await send();
      const seen = () => chat.events.reduce((n, e) => n + (e.conversationEvents.delta?.text.length ?? 0), 0);
      await cut(runId, seen);
      await until(
        () => chat.events.some((e) => e.conversationEvents.message?.role === 'NOTICE'),
        15_000,
        'the notice',
      );
      chat.unsubscribe();
      return { runId, frames: chat.events.map((e) => e.conversationEvents) };
    }

    /** The deltas end with a final one, then a coded notice; no answer message is stored. */
    async function expectEndedWith(runId: string, frames: ChatFrame['conversationEvents'][], notice: string) {
      const deltas = frames.map((f) => f.delta).filter((d): d is Delta => d !== null);
      const text = assemble(deltas);
      expect(text.length).toBeGreaterThan(0);
      expect(text.length).toBeLessThan(ANSWER.length);
      expect(ANSWER.startsWith(text)).toBe(true);
      expect(deltas[deltas.length - 1]!.final).toBe(true);
      const finalAt = frames.findIndex((f) => f.delta?.final === true);
      const noticeAt = frames.findIndex((f) => f.message?.role === 'NOTICE');
      expect(finalAt).toBeLessThan(noticeAt);
      const messages = await t.dataSource.query(
        `SELECT role, notice FROM conversation_message WHERE run_id = $1 AND role <> 'USER'`,
        [runId],
      );
      expect(messages).toEqual([{ role: 'NOTICE', notice }]);
    }

    it('a provider error mid-answer ends the stream with a final delta and the RUN_FAILED notice', async () => {
      const { runId, frames } = await cutShort(
        [{ text: ANSWER.slice(0, 40), chunks: 8, chunkDelayMs: 40, error: 'upstream reset' }],
        async (id) => {
          expect(await waitForRest(t, id, 20_000)).toBe('FAILED');
        },
      );
      await expectEndedWith(runId, frames, 'RUN_FAILED');
      expect(frames.some((f) => f.kind === 'STATUS' && f.status === 'FAILED')).toBe(true);
    }, 40_000);

    it('cancelRun mid-answer ends the stream with a final delta and the RUN_CANCELLED notice', async () => {
      const { runId, frames } = await cutShort(
        [{ text: ANSWER, chunks: 24, chunkDelayMs: 60 }],
        async (id, seen) => {
          await until(() => seen() > 20, 15_000, 'part of the answer');
          const res = await t.gql(CANCEL, { runId: id }, 'alice');
          expect(res.errors).toBeUndefined();
          expect(await waitForRest(t, id, 20_000)).toBe('CANCELLED');
        },
      );
      await expectEndedWith(runId, frames, 'RUN_CANCELLED');
    }, 40_000);
  });
});
