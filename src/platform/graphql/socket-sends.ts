import WebSocket from 'ws';
import type { Writable } from 'node:stream';

/** Close code for a socket whose client reads too slowly (more than WS_MAX_BUFFERED_BYTES queued). */
export const SLOW_CONSUMER_CLOSE = 4413;

/** How long a slow socket has to take its close frame before it is cut. */
const CLOSE_GRACE_MS = 5_000;

/** A text message as its UTF-8 bytes and as one complete WebSocket frame of them. */
export interface FramedText {
  readonly bytes: Buffer;
  readonly frame: Buffer;
}

/** ws' own framing (`WebSocket.Sender.frame`, which its type definitions leave out). */
const { Sender } = WebSocket as unknown as {
  Sender: { frame(this: void, data: Buffer, options: object): Buffer[] };
};

/**
 * Frames a text message once for any number of server sockets: the bytes a `ws` server writes
 * for `send(text)` (FIN, text opcode, unmasked as RFC 6455 requires of a server).
 */
export function frameText(text: string): FramedText {
  const bytes = Buffer.from(text);
  const opts = { fin: true, opcode: 1, mask: false, readOnly: false, rsv1: false };
  return { bytes, frame: Buffer.concat(Sender.frame(bytes, opts)) };
}

/** The parts of a `ws` socket a pre-framed write needs (internal to ws 8: checked at each use). */
interface WsInternals {
  readonly _socket?: Writable;
  readonly _sender?: { readonly _state?: number };
}

/**
 * Wraps a graphql-ws socket's `send` so that one slow or stalled client never holds the others
 * back nor grows memory without bound:
 * - graphql-ws waits for each write's callback before it sends a stream's next frame, so a
 *   client that stops reading would park its streams while their events pile up in memory;
 *   here a write is reported done at once and the bytes wait in the socket's own buffer;
 * - that buffer is bounded: past `maxBuffered` bytes (ws' `bufferedAmount`) the socket is
 *   closed with SLOW_CONSUMER_CLOSE (the client resumes from its last sequence) and cut after
 *   a grace period if it does not read even that;
 * - `expand` turns a shared-frame marker into the frame's text (SharedFrames);
 * - `onSlowClose` is told each time a socket is closed for being slow (the metrics count it).
 * Returns the same bounded send for a message framed once for many sockets (`frameText`), for
 * frames written outside graphql-ws (SharedFrames' lanes).
 */
export function guardSends(
  socket: WebSocket,
  maxBuffered: number,
  expand: (data: string) => string,
  onSlowClose: () => void = () => undefined,
): (message: FramedText) => void {
  const send = socket.send.bind(socket) as (data: unknown, options?: { binary: boolean }) => void;
  let closing = false;
  /** Whether the socket may take one more frame; closes it (4413) once its buffer is over. */
  const open = (): boolean => {
    if (closing) return false;
    if (socket.bufferedAmount <= maxBuffered) return true;
    closing = true;
    onSlowClose();
    socket.close(
      SLOW_CONSUMER_CLOSE,
      'Too slow: the client did not read its frames; resume from the last sequence',
    );
    setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
    return false;
  };
  const guarded = (data: unknown, ...rest: unknown[]): void => {
    const cb = rest.find((x): x is (err?: Error) => void => typeof x === 'function');
    if (open()) send(typeof data === 'string' ? expand(data) : data);
    cb?.();
  };
  (socket as unknown as { send: typeof guarded }).send = guarded;
  const internals = socket as unknown as WsInternals;
  return (message) => {
    if (!open()) return;
    // why: one event goes to thousands of sockets; ws would frame it (and cork, writev) once
    // per socket. Its sender holds messages back only while it compresses or reads a Blob
    // (state 0 is idle; this server negotiates no compression): when idle, the frame built
    // once goes straight to the TCP socket, in order with everything ws wrote before it, and
    // counts in bufferedAmount like any write. Otherwise, or should ws' internals change,
    // ws sends it.
    const tcp = internals._socket;
    if (socket.readyState === WebSocket.OPEN && internals._sender?._state === 0 && tcp)
      tcp.write(message.frame);
    else send(message.bytes, { binary: false });
  };
}
