import type { HistoryEntry } from './history';
import { index } from './checker';
import type { DecisionFact, Facts, VoteFact } from './facts';
import { checkExpiries, checkQuorums } from './quorum-checks';

const RUN = 'run-q';

function decision(over: Partial<DecisionFact> = {}): DecisionFact {
  return {
    id: 'dec-q',
    runId: RUN,
    turn: 1,
    kind: 'APPROVE',
    decidedBy: 4,
    turnDigest: 'd'.repeat(64),
    path: 'INLINE',
    idempotencyKey: null,
    handedBackCode: null,
    outcome: 'COMPLETED',
    ...over,
  };
}

const vote = (id: string, required = 2): VoteFact => ({ id, runId: RUN, turn: 1, required });

function ix(decisions: DecisionFact[], votes: VoteFact[]) {
  const facts: Facts = {
    runs: [],
    stepLogs: [],
    decisionSteps: [],
    decisionStepTimes: [],
    decisions,
    pageWrites: [],
    votes,
    users: {},
  };
  return index(facts, [] as HistoryEntry[]);
}

describe('soak: quorum and expiry checks', () => {
  it('a quorum of 2 approved with 2 votes holds; with 1 or 3 it does not', () => {
    expect(checkQuorums(ix([decision()], [vote('v1'), vote('v2')])).ok).toBe(true);
    expect(checkQuorums(ix([decision()], [vote('v1')])).ok).toBe(false);
    expect(checkQuorums(ix([], [vote('v1'), vote('v2'), vote('v3')])).ok).toBe(false);
  });

  it('a handed-back turn may count one vote more', () => {
    const back = decision({ handedBackCode: 'STALE_TURN', outcome: null });
    expect(checkQuorums(ix([back], [vote('v1'), vote('v2'), vote('v3')])).ok).toBe(true);
  });

  it('EXPIRE records have no decider, and nothing else lacks one', () => {
    expect(checkExpiries(ix([decision({ kind: 'EXPIRE', decidedBy: null })], [])).ok).toBe(true);
    expect(checkExpiries(ix([decision({ kind: 'EXPIRE', decidedBy: 3 })], [])).ok).toBe(false);
    expect(checkExpiries(ix([decision({ decidedBy: null })], [])).ok).toBe(false);
  });
});
