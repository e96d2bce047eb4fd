import type { PendingView } from '../application/runs.service';
import type { RunStepView, RunView } from '../core/run-view';
import { asPin } from '../core/process-resolution';
import {
  PauseKindEnum,
  PendingTurnModel,
  RunModel,
  RunStatusEnum,
  RunStepModel,
  StepKindEnum,
  TerminationReasonEnum,
} from './run.model';

/** The row behind a Run model, for its field resolvers (never exposed as a field). */
export const RUN_ROW = Symbol('runRow');
export type RunModelWithRow = RunModel & { [RUN_ROW]: RunView };

export function toRunModel(run: RunView): RunModelWithRow {
  return {
    [RUN_ROW]: run,
    id: run.id,
    status: run.status as RunStatusEnum,
    workspaceId: run.workspaceId,
    stepCount: run.stepCount,
    iterations: run.iterations,
    truncated: run.truncated,
    terminationReason: (run.terminationReason as TerminationReasonEnum | null) ?? null,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    stepsRemovedAt: run.stepsRemovedAt,
    isProcessRun: run.processPin !== null,
    skillVersion: asPin(run.processPin)?.version ?? null,
    predecessorRunId: run.predecessorRunId,
    droppedProcess: run.droppedProcess ? { reason: droppedReason(run.droppedProcess) } : null,
    subjectPageId: run.subjectPageId,
    subjectLanguageId: run.subjectLanguageId,
  };
}

export function rowOf(model: RunModel): RunView {
  const row = (model as Partial<RunModelWithRow>)[RUN_ROW];
  if (!row) throw new Error('Run model without its row');
  return row;
}

export function toStepModel(step: RunStepView): RunStepModel {
  return {
    sequence: step.sequence,
    kind: step.kind as StepKindEnum,
    round: step.round,
    durationMs: step.durationMs,
    at: step.createdAt,
    payload: step.payload,
  };
}

export function toPendingModel(pending: PendingView): PendingTurnModel {
  return {
    kind: pending.kind as PauseKindEnum,
    turn: pending.turn,
    turnDigest: pending.digest,
    calls: pending.calls.map((c) => ({
      callId: c.callId,
      toolName: c.toolName,
      writes: c.writes,
      arguments: pending.detailVisible ? c.arguments : null,
      preview: [...c.preview],
    })),
    inputRequest: pending.inputRequest
      ? {
          toolName: pending.inputRequest.toolName,
          question: pending.inputRequest.question,
          schema: pending.inputRequest.schema,
        }
      : null,
    waitingSince: pending.waitingSince,
    expiresAt: pending.expiresAt,
    approvalsRequired: pending.approvalsRequired,
    runId: pending.runId,
  };
}

function droppedReason(dropped: Record<string, unknown>): string {
  return typeof dropped.reason === 'string' ? dropped.reason : 'UNKNOWN';
}
