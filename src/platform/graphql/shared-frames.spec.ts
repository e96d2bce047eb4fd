import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { subscriptionStream } from '../pubsub/subscription-stream';
import { SHARED_FRAMES, SharedFrames } from './shared-frames';
import type { FramedText } from './socket-sends';

/** A schema with one shared and one per-subscriber subscription over the same source. */
function schema(calls: { n: number }, source: () => AsyncIterableIterator<unknown>): GraphQLSchema {
  const field = (shared: boolean) => ({
    type: GraphQLString,
    extensions: shared ? { [SHARED_FRAMES]: true } : {},
    subscribe: source,
    resolve: (e: { text: string }) => {
      calls.n++;
      return e.text;
    },
  });
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { x: { type: GraphQLString } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: { shared: field(true), own: field(false) },
    }),
  });
}

async function* once(event: unknown): AsyncIterableIterator<unknown> {
  yield await Promise.resolve(event);
}

describe('SharedFrames', () => {
  const event = { text: 'hello "world"' };

  it('executes a marked field once per event for all subscribers, and expands its frame text', async () => {
    const calls = { n: 0 };
    const s = schema(calls, () => once(event));
    const frames = new SharedFrames();
    const results = [];
    for (let i = 0; i < 3; i++) {
      const it = (await frames.subscribe({
        schema: s,
        document: parse('subscription { shared }'),
      })) as AsyncIterableIterator<Record<string, unknown>>;
      results.push((await it.next()).value);
    }
    expect(calls.n).toBe(1);
    expect(results[1]).toBe(results[0]);
    const marker = frames.marker(results[0]);
    expect(marker).toBeDefined();
    const message = JSON.stringify({ id: 'op-7', type: 'next', payload: marker });
    expect(JSON.parse(frames.expandFrame(message))).toEqual({
      id: 'op-7',
      type: 'next',
      payload: { data: { shared: 'hello "world"' } },
    });
  });

  it('executes an unmarked field per subscriber, and leaves other messages alone', async () => {
    const calls = { n: 0 };
    const s = schema(calls, () => once(event));
    const frames = new SharedFrames();
    for (let i = 0; i < 3; i++) {
      const it = (await frames.subscribe({
        schema: s,
        document: parse('subscription { own }'),
      })) as AsyncIterableIterator<Record<string, unknown>>;
      expect(frames.marker((await it.next()).value)).toBeUndefined();
    }
    expect(calls.n).toBe(3);
    const plain = JSON.stringify({ id: '1', type: 'next', payload: { data: { own: 'x' } } });
    expect(frames.expandFrame(plain)).toBe(plain);
  });

  it("writes a shared frame straight to a subscription's lane while it waits, as one UTF-8 `next` message", async () => {
    const calls = { n: 0 };
    const events: Array<(e: unknown) => void> = [];
    const s = schema(calls, () =>
      subscriptionStream<unknown, unknown>({
        subscribe: (push) => {
          events.push(push);
          return Promise.resolve(() => Promise.resolve());
        },
        onEvent: (e, c) => c.emit(e),
      }),
    );
    const frames = new SharedFrames();
    const sent: Array<{ id: string; message: FramedText }> = [];
    const iterators = [];
    for (const id of ['1', '1', '7']) {
      const args = { schema: s, document: parse('subscription { shared }') };
      frames.openLane(args, { id, send: (message) => sent.push({ id, message }) });
      const it = (await frames.subscribe(args)) as AsyncIterableIterator<unknown>;
      iterators.push(it);
      void it.next();
    }
    await new Promise((r) => setImmediate(r));
    for (const push of events) push(event);
    expect(calls.n).toBe(1);
    expect(sent.map((x) => [x.id, JSON.parse(x.message.bytes.toString())])).toEqual(
      ['1', '1', '7'].map((id) => [id, { id, type: 'next', payload: { data: { shared: 'hello "world"' } } }]),
    );
    // why: the frame is the bytes behind a text frame's header (FIN + opcode 1, unmasked).
    const { bytes, frame } = sent[0]!.message;
    expect(frame[0]).toBe(0x81);
    expect(frame.subarray(frame.length - bytes.length).equals(bytes)).toBe(true);
    // why: the same bytes serve every subscription numbered alike.
    expect(sent[1]!.message).toBe(sent[0]!.message);
    for (const it of iterators) await it.return?.();
  });
});
