import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import type { Api } from '../api/graphql';
import { refusalMessage } from '../api/refusals';
import type { DenialReason, PendingTurn, RunProgressEvent } from '../api/types';
import { ProgressBar, type Progress } from './progress-bar';
import { fieldsOf, valuesOf, type FieldErrors } from './schema-fields';
import { SchemaForm } from './schema-form';
import { useDecision, type Decide, type DecisionAction } from './use-decision';

interface Props {
  api: Api;
  runId: string;
  pending: PendingTurn;
  /** False where approving would be refused (four-eyes, the decider gate); they may still deny. */
  mayApprove: boolean;
  /** The refusal approving would meet, shown instead of an Approve that would fail. */
  approveRefusal?: string | null;
  decide: Decide;
  onSettled: (event: RunProgressEvent, action: DecisionAction) => void;
}

const STARTING: Progress = { stepCount: 0, status: 'RUNNING', settled: false };

const REASONS: ReadonlyArray<{ value: DenialReason | ''; label: string }> = [
  { value: '', label: 'No reason' },
  { value: 'VARIANT', label: 'Try a variant (VARIANT)' },
  { value: 'SKIP', label: 'Skip this change (SKIP)' },
];

/**
 * Approve, deny (with a reason) or answer a waiting run's turn. While the decision runs the
 * whole form is disabled and the progress bar follows `runProgress` until SETTLED.
 */
export function DecisionPanel({ api, runId, pending, mayApprove, approveRefusal, decide, onSettled }: Props) {
  const state = useDecision(api, runId, decide, onSettled);
  const id = useId();
  const progressRef = useRef<HTMLDivElement>(null);
  const [reason, setReason] = useState<DenialReason | ''>('');
  const fields = useMemo(() => fieldsOf(pending.inputRequest?.schema), [pending]);
  const [raw, setRaw] = useState<Record<string, string>>({});
  const [localErrors, setLocalErrors] = useState<FieldErrors>({});
  const busy = state.phase !== 'idle';

  useEffect(() => {
    // why: the button that was pressed is disabled now; keyboard focus goes to the progress.
    if (state.phase === 'deciding') progressRef.current?.focus();
  }, [state.phase]);

  const submitInput = (event: FormEvent) => {
    event.preventDefault();
    const { values, errors } = valuesOf(fields, raw);
    setLocalErrors(errors);
    if (Object.keys(errors).length === 0) state.start({ kind: 'input', values });
  };
  const errorId = `${id}-error`;
  const refusedApproval = pending.kind === 'APPROVAL' && !mayApprove;

  return (
    <form
      noValidate
      className="decision"
      onSubmit={pending.kind === 'INPUT' ? submitInput : (e) => e.preventDefault()}
      aria-describedby={state.error ? errorId : undefined}
    >
      <fieldset disabled={busy} className="decision-controls">
        <legend className="visually-hidden">Decision</legend>
        {pending.kind === 'INPUT' ? (
          <>
            <SchemaForm
              fields={fields}
              values={raw}
              errors={{ ...localErrors, ...state.fieldErrors }}
              onChange={(name, value) => setRaw((r) => ({ ...r, [name]: value }))}
            />
            <button type="submit">Submit answer</button>
          </>
        ) : (
          <div className="actions">
            <button
              type="button"
              className="approve"
              disabled={!mayApprove}
              aria-describedby={refusedApproval ? `${id}-four-eyes` : undefined}
              onClick={() => state.start({ kind: 'approve' })}
            >
              Approve
            </button>
            <label htmlFor={`${id}-reason`}>Reason</label>
            <select
              id={`${id}-reason`}
              value={reason}
              onChange={(e) => setReason(e.target.value as DenialReason | '')}
            >
              {REASONS.map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </select>
            <button
              type="button"
              className="deny"
              onClick={() => state.start({ kind: 'deny', reason: reason || null })}
            >
              Deny
            </button>
          </div>
        )}
      </fieldset>
      {refusedApproval && (
        <p id={`${id}-four-eyes`} className="four-eyes">
          {refusalMessage(approveRefusal ?? 'SELF_APPROVAL_DENIED')}
        </p>
      )}
      {state.error && (
        <p id={errorId} role="alert" className="error">
          {state.error}
        </p>
      )}
      {state.phase === 'lost' && (
        <p className="live-lost" data-live="lost">
          Live connection lost
        </p>
      )}
      {state.phase === 'counted' && (
        <p className="notice" data-testid="vote-counted">
          Your approval is counted; the proposal waits for the other approvers.
        </p>
      )}
      {busy && state.phase !== 'lost' && state.phase !== 'counted' && (
        <div ref={progressRef} tabIndex={-1} className="progress-holder">
          <ProgressBar progress={state.progress ?? STARTING} label="Progress of the decision" />
        </div>
      )}
    </form>
  );
}
