import { involuntarySwitches, parseInvoluntarySwitches } from './preemptions';

describe('bench preemptions', () => {
  it('reads the involuntary switches from a thread status text', () => {
    const status = 'Name:\tnode\nvoluntary_ctxt_switches:\t812\nnonvoluntary_ctxt_switches:\t37\n';
    expect(parseInvoluntarySwitches(status)).toBe(37);
  });

  it('answers null for a status without the count', () => {
    expect(parseInvoluntarySwitches('Name:\tnode\nvoluntary_ctxt_switches:\t812\n')).toBeNull();
  });

  it('counts this thread on Linux, and the count never goes down', () => {
    const first = involuntarySwitches();
    if (process.platform !== 'linux') return expect(first).toBeNull();
    expect(first).toEqual(expect.any(Number));
    expect(involuntarySwitches()).toBeGreaterThanOrEqual(first!);
  });
});
