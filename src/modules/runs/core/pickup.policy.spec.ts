import type { SuspendedState } from '../../../agent';
import { pickupPlan } from './pickup.policy';

const state = (pending: unknown): SuspendedState => ({ pending }) as unknown as SuspendedState;

describe('pickupPlan', () => {
  it('launches a start input, a continuation without a pending turn and a recorded decision', () => {
    expect(pickupPlan({ v: 1, kind: 'start', prompt: 'Go' })).toEqual({ kind: 'launch' });
    expect(pickupPlan({ v: 1, kind: 'state', state: state(null) })).toEqual({ kind: 'launch' });
    expect(
      pickupPlan({
        v: 1,
        kind: 'decided',
        state: state({ kind: 'APPROVAL' }),
        decision: { kind: 'approve' } as never,
        decisionId: 'd1',
      }),
    ).toEqual({ kind: 'launch' });
  });

  it('fails a state that still waits for a decision, saying why', () => {
    const plan = pickupPlan({ v: 1, kind: 'state', state: state({ kind: 'APPROVAL', turn: 1 }) });
    expect(plan.kind).toBe('fail');
    expect(plan.kind === 'fail' && plan.message).toMatch(/waits for a decision/);
  });
});
