import { stepLogProblems, type RunRow, type StepRow } from './runs';

const run = (stepCount: number): RunRow => ({
  id: 'r',
  status: 'COMPLETED',
  terminationReason: 'COMPLETED',
  truncated: false,
  iterations: 1,
  stepCount,
  startedAtMs: 0,
  finishedAtMs: 1,
});
const steps = (...sequences: number[]): StepRow[] =>
  sequences.map((sequence) => ({ sequence, kind: 'LLM', xid: 1, atMs: 0 }));

describe('stepLogProblems', () => {
  it('accepts sequences 1..n matching step_count', () => {
    expect(stepLogProblems(run(3), steps(1, 2, 3))).toEqual([]);
  });

  it('names a step_count that differs from the rows, and a gap', () => {
    expect(stepLogProblems(run(3), steps(1, 3))).toEqual([
      'step_count 3 but 2 run_step rows',
      'sequence 3 at position 2 (expected 2)',
    ]);
  });
});
