/**
 * A run as the runs module hands it to its callers and the transport: the stored row's
 * values, never the TypeORM entity (whose relations and identity map stay in persistence).
 */
export interface RunView {
  readonly id: string;
  readonly configurationId: number;
  readonly ownerId: number;
  readonly workspaceId: number;
  readonly subjectPageId: number | null;
  readonly subjectLanguageId: number | null;
  readonly maxIterations: number;
  readonly status: string;
  readonly terminationReason: string | null;
  readonly truncated: boolean;
  readonly iterations: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly stepCount: number;
  /** Sealed; opened only by the runs module (StateVault). */
  readonly checkpoint: string | null;
  readonly turn: number;
  readonly turnDigest: string | null;
  readonly waitingSince: Date | null;
  /** The deadline of the approval it waits for (docs/decisions.md, "Deadlines"); null: none. */
  readonly expiresAt: Date | null;
  readonly claimedBy: string | null;
  readonly leaseToken: string | null;
  readonly leaseExpiresAt: Date | null;
  readonly pendingEffect: Record<string, unknown> | null;
  readonly requeueCount: number;
  readonly predecessorRunId: string | null;
  readonly skillInvocation: Record<string, unknown> | null;
  readonly processPin: Record<string, unknown> | null;
  readonly droppedProcess: Record<string, unknown> | null;
  readonly handBack: Record<string, unknown> | null;
  readonly recordedAt: Date | null;
  readonly hadDecision: boolean;
  /** Started as a chat turn (`RunsService.enqueueTurn`): only such a run can be a conversation's. */
  readonly chatTurn: boolean;
  readonly answer: string | null;
  readonly errorMessage: string | null;
  readonly createdAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  /** When retention removed the steps of this finished run; null while they are kept. */
  readonly stepsRemovedAt: Date | null;
  readonly updatedAt: Date;
}

/** One stored step of a run. */
export interface RunStepView {
  readonly runId: string;
  readonly sequence: number;
  readonly kind: string;
  readonly round: number;
  readonly durationMs: number;
  readonly payload: Record<string, unknown>;
  readonly createdAt: Date;
}
