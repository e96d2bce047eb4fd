import { AnswerStream } from './live-answers';

interface Sent {
  offset: number;
  text: string;
  final: boolean;
}

describe('AnswerStream (the throttle of an answer’s text deltas)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function stream(windowMs: number): { s: AnswerStream; sent: Sent[] } {
    const sent: Sent[] = [];
    const s = new AnswerStream('run-1', 2, windowMs, (d) => {
      expect(d).toMatchObject({ messageId: 'run-1', turn: 2 });
      sent.push({ offset: d.offset, text: d.text, final: d.final });
      return Promise.resolve();
    });
    return { s, sent };
  }

  it('sends the first text at once, then at most one delta per window with what arrived', () => {
    const { s, sent } = stream(50);
    s.push('Hel');
    expect(sent).toEqual([{ offset: 0, text: 'Hel', final: false }]);
    s.push('lo');
    s.push(', wor');
    expect(sent).toHaveLength(1);
    jest.advanceTimersByTime(49);
    expect(sent).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(sent[1]).toEqual({ offset: 3, text: 'lo, wor', final: false });
    s.push('ld');
    jest.advanceTimersByTime(50);
    s.close();
    expect(sent.slice(2)).toEqual([
      { offset: 10, text: 'ld', final: false },
      { offset: 12, text: '', final: true },
    ]);
    expect(s.sent).toBe('Hello, world');
  });

  it('sends at once again after a quiet window, and the final delta carries what the window held', () => {
    const { s, sent } = stream(50);
    s.push('a');
    jest.advanceTimersByTime(200);
    s.push('b');
    expect(sent.map((d) => d.text)).toEqual(['a', 'b']);
    s.push('c');
    s.close();
    expect(sent[2]).toEqual({ offset: 2, text: 'c', final: true });
    // closed: later text and a second close send nothing
    s.push('d');
    s.close();
    jest.advanceTimersByTime(100);
    expect(sent).toHaveLength(3);
  });

  it('sends every delta with a window of 0, and nothing for an empty answer', () => {
    const { s, sent } = stream(0);
    s.push('x');
    s.push('');
    s.push('y');
    expect(sent.map((d) => [d.offset, d.text])).toEqual([
      [0, 'x'],
      [1, 'y'],
    ]);
    const empty = stream(50);
    empty.s.close();
    expect(empty.sent).toEqual([]);
  });
});
