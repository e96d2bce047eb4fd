import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { SHARED_FRAMES, SharedFrames } from './shared-frames';

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
});
