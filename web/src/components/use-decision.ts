import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, type Api } from '../api/graphql';
import { RUN_PROGRESS } from '../api/operations';
import { refusalMessage } from '../api/refusals';
import type { DenialReason, RunProgressEvent } from '../api/types';
import type { Progress } from './progress-bar';
import { problemsByField, type FieldErrors } from './schema-fields';

export type DecisionAction =
  | { readonly kind: 'approve' }
  | { readonly kind: 'deny'; readonly reason: DenialReason | null }
  | { readonly kind: 'input'; readonly values: unknown };

/**
 * Sends one decision; rejects with an {@link ApiError} when the server refuses it. Resolves
 * `counted` for an approval that was one vote of a quorum: the run still waits for others.
 */
export type Decide = (action: DecisionAction, idempotencyKey: string) => Promise<void | 'counted'>;

/**
 * `lost`: the decision was sent but the live progress ended before the run settled;
 * `counted`: the approval counted towards a quorum, nothing continues yet.
 */
export type Phase = 'idle' | 'deciding' | 'settled' | 'lost' | 'counted';

export interface DecisionState {
  readonly phase: Phase;
  readonly progress: Progress | null;
  readonly error: string | null;
  readonly fieldErrors: FieldErrors;
  start(action: DecisionAction): void;
}

/** How long to wait for the progress snapshot before deciding anyway (nothing is missed either way). */
const SNAPSHOT_WAIT_MS = 3000;

/**
 * One decision and its continuation: subscribes to `runProgress` first (so every step is seen),
 * sends the decision, follows the step count until SETTLED and then calls `onSettled`. A refusal
 * ends the subscription and leaves a readable message; the run has not moved.
 */
export function useDecision(
  api: Api,
  runId: string,
  decide: Decide,
  onSettled: (event: RunProgressEvent, action: DecisionAction) => void,
): DecisionState {
  const [phase, setPhase] = useState<Phase>('idle');
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const stop = useRef<() => void>(() => undefined);
  useEffect(() => () => stop.current(), []);

  const start = useCallback(
    (action: DecisionAction) => {
      setPhase('deciding');
      setError(null);
      setFieldErrors({});
      setProgress(null);
      void follow(api, runId, decide, action, {
        progress: setProgress,
        setStop: (f) => (stop.current = f),
        settled: (event) => {
          setPhase('settled');
          onSettled(event, action);
        },
        refused: (e) => {
          setPhase('idle');
          setProgress(null);
          setError(refusalMessage(e.code));
          if (e.code === 'INVALID_INPUT') setFieldErrors(problemsByField(e.extensions));
        },
        counted: () => {
          setPhase('counted');
          setProgress(null);
        },
        lost: () => {
          setPhase('lost');
          setError(
            'Live connection lost: the decision was sent, but its progress cannot be followed. Reload to see the outcome.',
          );
        },
      });
    },
    [api, runId, decide, onSettled],
  );
  return { phase, progress, error, fieldErrors, start };
}

/**
 * One key per click, so a repeated request returns the first receipt. why: getRandomValues, not
 * randomUUID, which browsers offer only on https or localhost.
 */
function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

interface FollowCallbacks {
  counted(): void;
  progress(p: Progress): void;
  setStop(stop: () => void): void;
  settled(event: RunProgressEvent): void;
  refused(error: ApiError): void;
  lost(): void;
}

async function follow(
  api: Api,
  runId: string,
  decide: Decide,
  action: DecisionAction,
  on: FollowCallbacks,
): Promise<void> {
  const key = newIdempotencyKey();
  let snapshot: () => void = () => undefined;
  const subscribed = new Promise<void>((resolve) => (snapshot = resolve));
  let decided = false;
  let ended = false;
  let settledEvent: RunProgressEvent | null = null;
  let unsubscribe: () => void = () => undefined;
  const finish = (event: RunProgressEvent) => {
    unsubscribe();
    on.progress({ stepCount: event.stepCount, status: event.status, settled: true });
    on.settled(event);
  };
  unsubscribe = api.subscribe<{ runProgress: RunProgressEvent }>(
    RUN_PROGRESS,
    { runId },
    ({ runProgress: event }) => {
      snapshot();
      on.progress({ stepCount: event.stepCount, status: decided ? event.status : 'RUNNING', settled: false });
      if (event.kind !== 'SETTLED') return;
      // why: a SETTLED may overtake the mutation's answer; it counts only once the decision was taken.
      settledEvent = event;
      if (decided) finish(event);
    },
    () => {
      snapshot();
      ended = true;
      if (decided && !settledEvent) on.lost();
    },
  );
  on.setStop(unsubscribe);
  await Promise.race([subscribed, new Promise((r) => setTimeout(r, SNAPSHOT_WAIT_MS))]);
  let outcome: void | 'counted';
  try {
    outcome = await decide(action, key);
  } catch (e) {
    unsubscribe();
    on.refused(e instanceof ApiError ? e : new ApiError('NETWORK', String(e)));
    return;
  }
  if (outcome === 'counted') {
    unsubscribe();
    on.counted();
    return;
  }
  decided = true;
  if (settledEvent) finish(settledEvent);
  else if (ended) on.lost();
}
