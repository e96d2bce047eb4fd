import { EDITOR_ROUNDS, QUESTION_ROUNDS } from '../../demo/demo-data';
import { fakePorts } from '../testing/fake-ports';
import { startInput } from '../testing/fixtures';
import { digestsEqual } from './digest';
import { DecisionMismatchError } from './errors';
import { resumeAgent } from './resume';
import { pausedRun } from './resume.fixtures';
import { decisionStep } from './steps';

const ctx = startInput();

describe('resumeAgent: misfits and the decision step', () => {
  it('refuses a decision of the wrong kind', async () => {
    const { state } = await pausedRun(QUESTION_ROUNDS);
    await expect(
      resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'x' }, fakePorts().ports),
    ).rejects.toBeInstanceOf(DecisionMismatchError);
    await expect(
      resumeAgent(
        ctx,
        { ...state, pending: null },
        { kind: 'input', submittedBy: 'x', values: {} },
        fakePorts().ports,
      ),
    ).rejects.toBeInstanceOf(DecisionMismatchError);
  });

  it('builds the APPROVAL / INPUT step for the decision layer, without input values', async () => {
    const { state } = await pausedRun(EDITOR_ROUNDS);
    expect(decisionStep({ kind: 'deny', decidedBy: 'bob', reason: 'SKIP' }, state, 3)).toEqual({
      kind: 'APPROVAL',
      round: 2,
      durationMs: 0,
      payload: {
        approved: false,
        decidedBy: 3,
        reason: 'SKIP',
        callCount: 1,
        toolNames: ['pages_update'],
        turn: 1,
        digest: state.pending?.digest,
      },
    });
    const q = await pausedRun(QUESTION_ROUNDS);
    const input = decisionStep(
      { kind: 'input', submittedBy: 'alice', values: { tone: 'formal' } },
      q.state,
      2,
    );
    expect(input.kind).toBe('INPUT');
    expect(JSON.stringify(input)).not.toContain('formal');
    expect(digestsEqual(q.state.pending!.digest, input.payload.digest as string)).toBe(true);
  });

  it('notices a cancel before carrying out the decision', async () => {
    const { content, state } = await pausedRun(EDITOR_ROUNDS);
    const fake = fakePorts({ content, stopAtCheck: 1 });
    const outcome = await resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'bob' }, fake.ports);
    expect(outcome.kind).toBe('cancelled');
    expect(content.applied).toEqual([]);
  });
});
