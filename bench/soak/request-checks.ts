// What the soak's requests show about decisions: digests, idempotency keys, four-eyes.
import { checkAll, type Check } from '../support/report';
import type { Indexed } from './checker';
import { DECISION_OPERATIONS } from './history';

/** Stale digests and changed decisions under a used key are never acknowledged; receipts match what was sent. */
export function checkDigests(ix: Indexed): Check {
  const problems: string[] = [];
  let decisions = 0;
  for (const e of ix.requests) {
    if (!DECISION_OPERATIONS.has(e.op)) continue;
    decisions++;
    if (!e.receipt) continue;
    if (e.stale)
      problems.push(`#${e.seq} ${e.op} (${e.intent}) on run ${e.runId} acknowledged a made-up digest`);
    const sent = (e.variables.input as { turnDigest?: string } | undefined)?.turnDigest;
    const d = ix.decisions.get(e.receipt.decisionId);
    if (d && sent !== d.turnDigest)
      problems.push(`#${e.seq}: receipt for digest ${d.turnDigest}, sent ${sent}`);
  }
  return checkAll(
    'no made-up digest acknowledged; every receipt is for the digest sent',
    decisions,
    problems,
  );
}

/** One idempotency key (same user, same run): one decision, whoever answered. */
export function checkIdempotency(ix: Indexed): Check {
  const byKey = new Map<string, Set<string>>();
  for (const e of ix.requests) {
    const key = (e.variables.input as { idempotencyKey?: string } | undefined)?.idempotencyKey;
    if (!e.receipt || !key) continue;
    const k = `${e.runId}:${e.user}:${key}`;
    byKey.set(k, new Set([...(byKey.get(k) ?? []), e.receipt.decisionId]));
  }
  const problems = [...byKey]
    .filter(([, ids]) => ids.size > 1)
    .map(([k, ids]) => `${k}: ${[...ids].join(', ')}`);
  return checkAll(
    'one idempotency key, one decision (double clicks and replays get the first receipt)',
    byKey.size,
    problems,
  );
}

/** Four-eyes: no initiator's approval on a run that needs a second approver. */
export function checkFourEyes(ix: Indexed): Check {
  const problems: string[] = [];
  for (const d of ix.facts.decisions) {
    const run = ix.runs.get(d.runId);
    if (run?.fourEyes && d.kind === 'APPROVE' && d.decidedBy === run.ownerId) {
      problems.push(`run ${run.id} turn ${d.turn}: approved by its initiator`);
    }
  }
  const fourEyes = ix.facts.runs.filter((r) => r.fourEyes).length;
  return checkAll('four-eyes runs never approved by their initiator', fourEyes, problems);
}
