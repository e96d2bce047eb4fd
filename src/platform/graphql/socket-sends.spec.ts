import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { frameText, guardSends, SLOW_CONSUMER_CLOSE } from './socket-sends';

/** A socket whose outgoing buffer the test sets; records what was written and how it closed. */
function fakeSocket() {
  const s = Object.assign(new EventEmitter(), {
    bufferedAmount: 0,
    written: [] as string[],
    closed: null as null | number,
    terminated: false,
    send(data: string, cb?: (e?: Error) => void) {
      s.written.push(data);
      cb?.();
    },
    close(code: number) {
      s.closed = code;
    },
    terminate() {
      s.terminated = true;
    },
  });
  return s;
}

describe('guardSends', () => {
  it('reports a write done at once, expands frames, and closes with 4413 once the buffer is over the bound', () => {
    jest.useFakeTimers();
    const s = fakeSocket();
    guardSends(s as unknown as WebSocket, 1000, (d) => d.replace('MARK', 'frame'));
    const done: number[] = [];
    s.send('a MARK', () => done.push(1));
    expect(s.written).toEqual(['a frame']);
    expect(done).toEqual([1]);

    s.bufferedAmount = 1001;
    s.send('b', () => done.push(2));
    expect(s.closed).toBe(SLOW_CONSUMER_CLOSE);
    expect(s.written).toEqual(['a frame']);
    expect(done).toEqual([1, 2]);
    s.send('c', () => done.push(3));
    expect(s.written).toHaveLength(1);
    expect(s.terminated).toBe(false);
    jest.advanceTimersByTime(5_000);
    expect(s.terminated).toBe(true);
    jest.useRealTimers();
  });

  it('writes a message framed once straight to a real socket, received as the same text message, in order with ws sends', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => server.once('listening', r));
    const accepted = new Promise<WebSocket>((r) => server.once('connection', r));
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const received: Array<{ text: string; binary: boolean }> = [];
    const all = new Promise<void>((done) =>
      client.on('message', (data, binary) => {
        received.push({ text: (data as Buffer).toString(), binary });
        if (received.length === 4) done();
      }),
    );
    const socket = await accepted;
    const direct = guardSends(socket, 1 << 20, (d) => d);
    const long = `{"payload":"${'é'.repeat(200)}"}`;
    const tcp = (socket as unknown as { _socket: { write: (b: Buffer) => boolean } })._socket;
    const writes = jest.spyOn(tcp, 'write');
    socket.send('first');
    const framed = [frameText('{"id":"1","type":"next"}'), frameText(long)];
    for (const m of framed) direct(m);
    socket.send('last');
    await all;
    // why: the frames went to the TCP socket as built, not through ws' sender.
    expect(writes.mock.calls.filter(([b]) => framed.some((m) => m.frame === b))).toHaveLength(2);
    expect(received).toEqual([
      { text: 'first', binary: false },
      { text: '{"id":"1","type":"next"}', binary: false },
      { text: long, binary: false },
      { text: 'last', binary: false },
    ]);
    client.close();
    await new Promise((r) => server.close(r));
  });

  it('hands a framed message to ws as text where it cannot write the frame itself, and not at all once over the bound', () => {
    jest.useFakeTimers();
    const s = Object.assign(fakeSocket(), { readyState: 1 });
    const sent: Array<[unknown, unknown]> = [];
    s.send = (data: unknown, options?: unknown) => void sent.push([data, options]);
    const direct = guardSends(s as unknown as WebSocket, 10, (d) => d);
    const message = frameText('{"a":1}');
    direct(message);
    expect(sent).toEqual([[message.bytes, { binary: false }]]);
    s.bufferedAmount = 11;
    direct(message);
    expect(sent).toHaveLength(1);
    expect(s.closed).toBe(SLOW_CONSUMER_CLOSE);
    jest.useRealTimers();
  });
});
