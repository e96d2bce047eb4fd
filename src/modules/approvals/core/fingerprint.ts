import { sha256OfCanonical } from '../../../common/canonical-json';
import type { RecordedKind } from './decision-checks';

/**
 * What a decision decided, hashed: the same idempotency key with another fingerprint is a
 * different decision (IDEMPOTENCY_KEY_REUSED).
 */
export function decisionFingerprint(d: {
  kind: RecordedKind;
  turnDigest: string;
  reason?: string | null;
  values?: unknown;
}): string {
  return sha256OfCanonical({
    kind: d.kind,
    digest: d.turnDigest,
    reason: d.reason ?? null,
    values: d.values ?? null,
  });
}
