import type { WebSocket } from 'ws';

/** Close code for a socket whose client reads too slowly (more than WS_MAX_BUFFERED_BYTES queued). */
export const SLOW_CONSUMER_CLOSE = 4413;

/** How long a slow socket has to take its close frame before it is cut. */
const CLOSE_GRACE_MS = 5_000;

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
 * Returns the same bounded send for a finished message (text, or its UTF-8 bytes), for frames
 * written to the socket outside graphql-ws (SharedFrames' lanes).
 */
export function guardSends(
  socket: WebSocket,
  maxBuffered: number,
  expand: (data: string) => string,
  onSlowClose: () => void = () => undefined,
): (text: string | Buffer) => void {
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
  // why: a Buffer here is UTF-8 text encoded once for many sockets: sent as a text frame.
  return (text) => {
    if (open()) send(text, { binary: false });
  };
}
