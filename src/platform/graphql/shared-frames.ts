import {
  createSourceEventStream,
  execute,
  ExecutionArgs,
  ExecutionResult,
  getOperationAST,
  Kind,
  print,
} from 'graphql';
import { mapStream } from '../pubsub/subscription-stream';

/**
 * The field extension that marks a subscription whose frames depend on the event alone (never
 * on the viewer): `@Extensions({ [SHARED_FRAMES]: true })`. Subscribers that receive the same
 * event object with the same operation then share one execution and one serialised frame.
 */
export const SHARED_FRAMES = 'sharedFrames';

/** What the serialised `next` message carries instead of a shared payload (see `expandFrame`). */
const MARK = '\u0000frame';
const MARK_PREFIX = `,"payload":{"${'\\u0000'}frame":`;

type Memo = Map<string, Promise<ExecutionResult>>;

/**
 * Build once per audience: one execution and one JSON text per (event, operation) instead of
 * one per subscriber. An event is shared only by identity (the bus hands every subscriber of a
 * topic the same object), and only for fields marked with SHARED_FRAMES, whose resolvers read
 * nothing but the event; everything else runs per subscriber, as graphql-js would.
 */
export class SharedFrames {
  private readonly executions = new WeakMap<object, Memo>();
  private readonly shared = new WeakSet<object>();
  private readonly texts = new WeakMap<object, string>();
  /** Frame texts by number, for the moment between `onNext` and the socket write. */
  private current = new Map<number, string>();
  private previous = new Map<number, string>();
  private rotatedAt = Date.now();
  private counter = 0;

  /** graphql-ws' `subscribe`: graphql-js' own, with the per-event execution shared where marked. */
  readonly subscribe = async (
    args: ExecutionArgs,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> => {
    const source = await createSourceEventStream(args);
    if (!isAsyncIterable(source)) return source as ExecutionResult;
    const key = shareKey(args);
    const run = (event: unknown): Promise<ExecutionResult> =>
      Promise.resolve(execute({ ...args, rootValue: event }));
    const map = key === null ? run : (event: unknown) => this.executeShared(event, key, run);
    return mapStream(source as AsyncIterableIterator<unknown>, map);
  };

  /**
   * graphql-ws' `onNext` for a result without errors that subscribers share: a marker the
   * socket's send replaces with the shared text (`expandFrame`), so it is serialised once.
   */
  marker(result: ExecutionResult): object | undefined {
    if (!this.shared.has(result) || result.errors) return undefined;
    let text = this.texts.get(result);
    if (text === undefined) {
      text = JSON.stringify(result);
      this.texts.set(result, text);
    }
    const id = ++this.counter;
    this.remember(id, text);
    return { [MARK]: id };
  }

  /** The message with a marker replaced by its frame's text; any other message unchanged. */
  expandFrame(data: string): string {
    const at = data.lastIndexOf(MARK_PREFIX);
    if (at < 0) return data;
    const id = Number(data.slice(at + MARK_PREFIX.length, data.length - 2));
    const text = this.current.get(id) ?? this.previous.get(id);
    if (text === undefined) return data;
    this.current.delete(id);
    return `${data.slice(0, at)},"payload":${text}}`;
  }

  private executeShared(event: unknown, key: string, run: (e: unknown) => Promise<ExecutionResult>) {
    if (typeof event !== 'object' || event === null) return run(event);
    let memo = this.executions.get(event);
    if (!memo) {
      memo = new Map();
      this.executions.set(event, memo);
    }
    let result = memo.get(key);
    if (!result) {
      result = run(event).then((r) => {
        this.shared.add(r);
        return r;
      });
      memo.set(key, result);
    }
    return result;
  }

  private remember(id: number, text: string): void {
    // why: a marker is expanded right after onNext (the same continuation in graphql-ws), so
    // two generations of a second each are plenty; older numbers are gone with their texts.
    const now = Date.now();
    if (now - this.rotatedAt > 1000) {
      this.previous = this.current;
      this.current = new Map();
      this.rotatedAt = now;
    }
    this.current.set(id, text);
  }
}

/** The key subscribers share executions under, or null when the root field is not marked. */
function shareKey(args: ExecutionArgs): string | null {
  const operation = getOperationAST(args.document, args.operationName);
  const fields = args.schema.getSubscriptionType()?.getFields();
  if (!operation || !fields) return null;
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return null;
    if (fields[selection.name.value]?.extensions?.[SHARED_FRAMES] !== true) return null;
  }
  return `${documentKey(args.document)}\n${args.operationName ?? ''}\n${JSON.stringify(args.variableValues ?? {})}`;
}

/** A short key per document text (subscribers of one operation share the document itself). */
const printed = new WeakMap<object, string>();
const byText = new Map<string, string>();
function documentKey(document: ExecutionArgs['document']): string {
  let key = printed.get(document);
  if (key === undefined) {
    const text = print(document);
    key = byText.get(text);
    if (key === undefined) {
      // why: past the bound the text itself is the key: never two texts under one key.
      key = byText.size < 10_000 ? `#${byText.size + 1}` : text;
      if (key !== text) byText.set(text, key);
    }
    printed.set(document, key);
  }
  return key;
}

function isAsyncIterable(value: unknown): boolean {
  return typeof (value as { [Symbol.asyncIterator]?: unknown })?.[Symbol.asyncIterator] === 'function';
}
