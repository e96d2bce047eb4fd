import {
  createSourceEventStream,
  execute,
  ExecutionArgs,
  ExecutionResult,
  getOperationAST,
  Kind,
  print,
} from 'graphql';
import { DIRECT_SINK, isDirectStream, mapStream } from '../pubsub/subscription-stream';
import { FramedText, frameText } from './socket-sends';

/**
 * The field extension that marks a subscription whose frames depend on the event alone (never
 * on the viewer): `@Extensions({ [SHARED_FRAMES]: true })`. Subscribers that receive the same
 * event object with the same operation then share one execution and one serialised frame.
 */
export const SHARED_FRAMES = 'sharedFrames';

/** What the serialised `next` message carries instead of a shared payload (see `expandFrame`). */
const MARK = '\u0000frame';
const MARK_PREFIX = `,"payload":{"${'\\u0000'}frame":`;

type Shared = ExecutionResult | Promise<ExecutionResult>;
type Memo = Map<string, Shared>;

/** A graphql-ws subscription's way to its socket: its id, and a send for finished frames. */
export interface Lane {
  readonly id: string;
  /** Sends a complete message framed once for many sockets (the socket's bounded send). */
  readonly send: (message: FramedText) => void;
}

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
  /** `next` messages per shared result and subscription id (see `readyMessage`). */
  private readonly messages = new WeakMap<object, Map<string, FramedText>>();
  /** The lane of each subscription's execution arguments, until it subscribes. */
  private readonly lanes = new WeakMap<object, Lane>();
  /** Frame texts by number, for the moment between `onNext` and the socket write. */
  private current = new Map<number, string>();
  private previous = new Map<number, string>();
  private rotatedAt = Date.now();
  private counter = 0;

  /**
   * Offers the subscription with these execution arguments (graphql-ws' `onSubscribe` result) a
   * lane to its socket: where its frames are shared and its source stream can hand values over
   * synchronously, each live frame is written straight to the socket (see `subscribe`).
   */
  openLane(args: ExecutionArgs, lane: Lane): void {
    this.lanes.set(args, lane);
  }

  /**
   * graphql-ws' `subscribe`: graphql-js' own, with the per-event execution shared where marked.
   * On a lane, a shared frame whose execution is ready goes straight to the socket as a `next`
   * message, inside the publish, instead of through graphql-ws' per-subscriber promise chain
   * (the stream offers a value only when everything before it was sent, so order holds);
   * snapshots, replays, results with errors, the end and failures take graphql-ws' own path.
   */
  readonly subscribe = async (
    args: ExecutionArgs,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> => {
    const source = await createSourceEventStream(args);
    if (!isAsyncIterable(source)) return source as ExecutionResult;
    const stream = source as AsyncIterableIterator<unknown>;
    const key = shareKey(args);
    if (key === null) return mapStream(stream, (event) => execute({ ...args, rootValue: event }));
    const lane = this.lanes.get(args);
    this.lanes.delete(args);
    if (lane && isDirectStream(stream)) {
      stream[DIRECT_SINK]((event) => {
        const message = this.readyMessage(event, key, args, lane.id);
        if (message === undefined) return false;
        lane.send(message);
        return true;
      });
    }
    return mapStream(stream, (event) => this.executeShared(event, key, args));
  };

  /**
   * graphql-ws' `onNext` for a result without errors that subscribers share: a marker the
   * socket's send replaces with the shared text (`expandFrame`), so it is serialised once.
   */
  marker(result: ExecutionResult): object | undefined {
    if (!this.shared.has(result) || result.errors) return undefined;
    const id = ++this.counter;
    this.remember(id, this.textOf(result));
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

  /** One execution per (event, operation); synchronous where the resolvers are. */
  private executeShared(event: unknown, key: string, args: ExecutionArgs): Shared {
    if (typeof event !== 'object' || event === null) return execute({ ...args, rootValue: event });
    const memo = tableOf(this.executions, event);
    let result = memo.get(key);
    if (result === undefined) {
      const executed = execute({ ...args, rootValue: event });
      if (isPromise(executed)) {
        result = executed.then((r) => {
          this.shared.add(r);
          memo.set(key, r);
          return r;
        });
      } else {
        this.shared.add(executed);
        result = executed;
      }
      memo.set(key, result);
    }
    return result;
  }

  /**
   * The `next` message of subscription `id` for an event, framed (`frameText`), when the
   * event's shared execution is ready and has no errors. It is framed once per result and
   * subscription id: most connections carry one subscription, numbered alike by the clients,
   * so one encoding serves most sockets.
   */
  private readyMessage(event: unknown, key: string, args: ExecutionArgs, id: string): FramedText | undefined {
    if (typeof event !== 'object' || event === null) return undefined;
    const result = this.executeShared(event, key, args);
    if (isPromise(result) || result.errors) return undefined;
    const byId = tableOf(this.messages, result);
    let message = byId.get(id);
    if (message === undefined) {
      message = frameText(`{"id":${JSON.stringify(id)},"type":"next","payload":${this.textOf(result)}}`);
      // why: ids are the clients' to choose; past a handful the bytes are not kept.
      if (byId.size < 16) byId.set(id, message);
    }
    return message;
  }

  private textOf(result: ExecutionResult): string {
    let text = this.texts.get(result);
    if (text === undefined) {
      text = JSON.stringify(result);
      this.texts.set(result, text);
    }
    return text;
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

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown })?.then === 'function';
}

/** The table kept for `owner` in `tables`, created on first use. */
function tableOf<V>(tables: WeakMap<object, Map<string, V>>, owner: object): Map<string, V> {
  let table = tables.get(owner);
  if (!table) {
    table = new Map();
    tables.set(owner, table);
  }
  return table;
}
