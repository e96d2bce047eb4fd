import { checkAll, type Check } from '../support/report';
import type { Indexed } from './checker';

/**
 * Quorums: a turn never counts more votes than its quorum, and every approval of a quorum turn
 * that was not handed back came with exactly that many votes (the completing vote and the
 * decision commit together). A handed-back turn may take one more vote after the hand-back.
 */
export function checkQuorums(ix: Indexed): Check {
  const votes = new Map<string, { n: number; required: number }>();
  for (const v of ix.facts.votes) {
    const key = `${v.runId}:${v.turn}`;
    votes.set(key, { n: (votes.get(key)?.n ?? 0) + 1, required: v.required });
  }
  const handedBack = new Set(
    ix.facts.decisions.filter((d) => d.handedBackCode !== null).map((d) => `${d.runId}:${d.turn}`),
  );
  const problems: string[] = [];
  for (const [key, { n, required }] of votes) {
    if (n > required && !handedBack.has(key))
      problems.push(`run:turn ${key}: ${n} votes for a quorum of ${required}`);
  }
  for (const d of ix.facts.decisions) {
    const key = `${d.runId}:${d.turn}`;
    const counted = votes.get(key);
    if (d.kind !== 'APPROVE' || d.handedBackCode !== null || handedBack.has(key) || !counted) continue;
    if (counted.n !== counted.required) {
      problems.push(`run:turn ${key}: approved with ${counted.n} votes for a quorum of ${counted.required}`);
    }
  }
  return checkAll(
    'quorum turns: never more votes than the quorum, approved with exactly the quorum',
    votes.size,
    problems,
  );
}

/** Expiries: an EXPIRE record has no decider, and only an EXPIRE record lacks one. */
export function checkExpiries(ix: Indexed): Check {
  const problems = ix.facts.decisions
    .filter((d) => (d.kind === 'EXPIRE') !== (d.decidedBy === null))
    .map((d) => `${d.kind} ${d.id} on run ${d.runId}: decided by ${d.decidedBy ?? 'nobody'}`);
  const expired = ix.facts.decisions.filter((d) => d.kind === 'EXPIRE').length;
  return checkAll(
    'expired turns: an EXPIRE record without a decider, nothing else without one',
    expired,
    problems,
  );
}
