/** A decision record as the approvals module hands it out (the stored row's values). */
export interface DecisionView {
  readonly id: string;
  readonly runId: string;
  readonly turn: number;
  readonly kind: string;
  /** Null for EXPIRE: nobody decided. */
  readonly decidedBy: number | null;
  readonly denialReason: string | null;
  readonly turnDigest: string;
  readonly path: string;
  readonly idempotencyKey: string | null;
  readonly fingerprint: string;
  readonly decidedAt: Date;
  readonly outcome: string | null;
  readonly settledAt: Date | null;
  readonly handedBackCode: string | null;
}
