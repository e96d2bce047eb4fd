import { END, fanoutFigures, newLog, stepKey, streamProblems, type SubscriberLog } from './fanout';

function log(
  audience: 'trace' | 'progress',
  first: number,
  keys: string[],
  end = 'COMPLETED',
): SubscriberLog {
  const l = newLog(audience);
  l.first = stepKey(first);
  keys.forEach((key, i) => l.live.push({ key, at: 100 + i }));
  l.end = end;
  return l;
}

describe('fan-out analysis', () => {
  it('accepts a stream with every step once, in order, then the end', () => {
    expect(streamProblems(log('progress', 4, ['s5', 's6', END]), 4, 6, 'COMPLETED')).toEqual([]);
  });

  it('names a gap, a duplicate, a missing end and a wrong first frame', () => {
    expect(streamProblems(log('progress', 4, ['s5', 's7', END]), 4, 7, 'COMPLETED')).toEqual([
      'frame 2 of the live phase was s7, expected s6',
    ]);
    expect(streamProblems(log('trace', 4, ['s5', 's5', 's6', END]), 4, 6, 'COMPLETED')[0]).toBe(
      'frame 2 of the live phase was s5, expected s6',
    );
    expect(streamProblems(log('trace', 3, ['s5', 's6'], 'RUNNING'), 4, 6, 'COMPLETED')).toEqual([
      'first frame s3, expected s4',
      'frame 3 of the live phase was missing, expected end',
      'ended RUNNING, expected COMPLETED',
    ]);
  });

  it('measures each delivery against its own event, and the last delivery of each event', () => {
    const a = log('progress', 0, ['s1', END]); // arrivals at 100, 101
    const b = log('progress', 0, ['s1']); // arrival at 100
    b.live.push({ key: END, at: 110 });
    const t = log('trace', 0, ['s1', 's9']); // s9 was never published
    const f = fanoutFigures([a, b, t], {
      progress: new Map([
        ['s1', 95],
        [END, 100],
      ]),
      trace: new Map([['s1', 90]]),
    });
    expect(f.latenciesMs).toEqual([5, 1, 5, 10, 10]);
    expect(f.lastDeliveryMs.sort((x, y) => x - y)).toEqual([5, 10, 10]);
    expect(f.unmatched).toBe(1);
    expect(f.deliveries).toBe(5);
    expect(f.rate).toBeCloseTo(5 / 0.02);
  });
});
