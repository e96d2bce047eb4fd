import type { DecisionPathSetting } from '../../../config/app-config';

export type ExecutionPath = 'INLINE' | 'DURABLE';

/**
 * Which path a decision (or a start) takes: the request's own `path`, else DECISION_PATH
 * (`auto`: durable where a live worker exists). A durable request while no worker is live is
 * taken inline: a recorded decision that no worker carries out is worse than an inline one.
 */
export function choosePath(
  requested: ExecutionPath | null | undefined,
  setting: DecisionPathSetting,
  liveWorkers: number,
): ExecutionPath {
  const wanted = requested ?? (setting === 'inline' ? 'INLINE' : setting === 'durable' ? 'DURABLE' : null);
  if (wanted === 'INLINE') return 'INLINE';
  return liveWorkers > 0 ? 'DURABLE' : 'INLINE';
}

/** True where the choice depends on whether a worker is live (so the caller must count them). */
export function needsWorkerCount(
  requested: ExecutionPath | null | undefined,
  setting: DecisionPathSetting,
): boolean {
  return (requested ?? (setting === 'inline' ? 'INLINE' : null)) !== 'INLINE';
}
