import type { DecisionsRepository } from '../../approvals';
import { DecisionOutcomes } from './decision-outcomes';

interface Row {
  id: string;
  turn: number;
  outcome: string | null;
  handedBackCode: string | null;
}

function setup(rows: Row[]) {
  const written: Array<[string, string]> = [];
  const repository = {
    listForRun: () => Promise.resolve([...rows].sort((a, b) => a.turn - b.turn)),
    setOutcome: (id: string, status: string) => Promise.resolve(void written.push([id, status])),
  };
  return { outcomes: new DecisionOutcomes(repository as unknown as DecisionsRepository), written };
}

describe('DecisionOutcomes', () => {
  const history: Row[] = [
    { id: 'first', turn: 1, outcome: 'WAITING_FOR_APPROVAL', handedBackCode: null },
    { id: 'handed-back', turn: 2, outcome: null, handedBackCode: 'STALE_TURN' },
    { id: 'open', turn: 2, outcome: null, handedBackCode: null },
  ];

  it('records the outcome of the open decision (no outcome, not handed back) of a decided run', async () => {
    const { outcomes, written } = setup(history);
    const record = await outcomes.recorderFor({ id: 'r', hadDecision: true });
    await record!('COMPLETED');
    expect(written).toEqual([['open', 'COMPLETED']]);
  });

  it('has nothing to record for a run without a decision or without an open one', async () => {
    expect(await setup(history).outcomes.recorderFor({ id: 'r', hadDecision: false })).toBeNull();
    const closed = setup(history.slice(0, 2));
    expect(await closed.outcomes.recorderFor({ id: 'r', hadDecision: true })).toBeNull();
    await closed.outcomes.settleOpen('r', 'FAILED');
    expect(closed.written).toEqual([]);
  });

  it('settles the open decision of a run the reaper failed', async () => {
    const { outcomes, written } = setup(history);
    await outcomes.settleOpen('r', 'FAILED');
    expect(written).toEqual([['open', 'FAILED']]);
  });
});
