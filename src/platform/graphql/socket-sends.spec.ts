import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { guardSends, SLOW_CONSUMER_CLOSE } from './socket-sends';

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
});
