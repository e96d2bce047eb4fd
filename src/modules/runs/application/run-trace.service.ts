import { Injectable } from '@nestjs/common';
import { RunReadsRepository } from '../persistence/run-reads.repository';
import type { PendingTurn } from '../../../agent';
import { Authenticator } from '../../../platform/auth/authenticator';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { EventBus } from '../../../platform/pubsub/event-bus';
import { subscriptionStream, StreamControl } from '../../../platform/pubsub/subscription-stream';
import { forbidden, notFound } from '../../../common/refusal';
import { parseUuid } from '../../../common/ids';
import { ConfigurationsService } from '../../configurations';
import { isTerminal, isWaiting } from '../core/run-status';
import type { RunView } from '../core/run-view';
import { TraceEvent, traceTopic } from './run-events';
import { StateVault } from './state-vault';

type Terminal = Extract<TraceEvent, { type: 'TERMINAL' }>;
type Waiting = Extract<TraceEvent, { type: 'WAITING' }>;

/**
 * The admin trace (`runEvents`): the stored steps after `afterSequence` (privacy-filtered, from
 * storage), then the live unfiltered steps, with no gap and no duplicate at the seam. A pause
 * is a WAITING event and the stream stays open, so the continuation after a decision streams
 * on, live and unfiltered; exactly one TERMINAL ends it once the run has settled (completed,
 * failed or cancelled). Authorised at the start and again for every event.
 */
@Injectable()
export class RunTraceService {
  constructor(
    private readonly reads: RunReadsRepository,
    private readonly bus: EventBus,
    private readonly authenticator: Authenticator,
    private readonly vault: StateVault,
    private readonly configurations: ConfigurationsService,
  ) {}

  async open(
    user: AuthUser,
    runId: string,
    afterSequence: number,
  ): Promise<AsyncIterableIterator<TraceEvent>> {
    const id = parseUuid(runId, 'runId');
    // why: the connection's user may be stale (revoked token, admin flag removed): the stored
    // steps replayed at the start must not reach them.
    if (!user.isAdmin || (await this.authenticator.reload(user))?.isAdmin !== true) {
      throw forbidden('The run trace is for admins');
    }
    if (!(await this.reads.findById(id))) throw notFound('Run not found');
    let last = Math.max(afterSequence, 0);
    /** The turn whose WAITING was sent last: a pause is announced once. */
    let waitingTurn: number | null = null;
    const announcePause = (event: Waiting, control: StreamControl<TraceEvent>): void => {
      const turn = event.pending?.turn ?? null;
      if (turn !== null && turn === waitingTurn) return;
      waitingTurn = turn;
      control.emit(event);
    };
    /** A live event, for a viewer still an admin: steps past the replay, pauses once, the end. */
    const onLive = (fresh: AuthUser | null, event: TraceEvent, control: StreamControl<TraceEvent>): void => {
      if (fresh?.isAdmin !== true) return control.fail(forbidden('Access to the run trace was lost'));
      if (event.type === 'TEXT_DELTA') return control.emit(event);
      if (event.type === 'STEP') {
        if (event.step.sequence <= last) return;
        last = event.step.sequence;
        return control.emit(event);
      }
      // why: the settler announces a pause as a TERMINAL with an AWAITING_* outcome (what
      // runProgress' SETTLED says too); for the trace a pause is not the end of the run.
      const pause = event.type === 'WAITING' ? event : pauseOf(event);
      if (pause) return announcePause(pause, control);
      control.emit(event);
      control.end();
    };
    return subscriptionStream<TraceEvent, TraceEvent>({
      subscribe: (push) => this.bus.subscribe<TraceEvent>(traceTopic(id), push),
      start: async (control) => {
        last = await this.replay(id, last, control);
        const run = await this.reads.findById(id);
        if (run && (isTerminal(run.status) || isWaiting(run.status))) {
          last = await this.replay(id, last, control);
          if (isWaiting(run.status)) return announcePause(await this.waitingOf(run), control);
          control.emit(this.terminalOf(run));
          control.end();
        }
      },
      // why: authorised again for every event (answered from memory, no promise, when known).
      onEvent: (event, control) => this.authenticator.withRefreshed(user, event, control, onLive),
    });
  }

  private async replay(runId: string, after: number, control: StreamControl<TraceEvent>): Promise<number> {
    let last = after;
    for (;;) {
      const page = await this.reads.listSteps(runId, last, 200);
      for (const s of page) {
        control.emit({
          type: 'STEP',
          runId,
          step: {
            sequence: s.sequence,
            kind: s.kind as never,
            round: s.round,
            durationMs: s.durationMs,
            at: s.createdAt.toISOString(),
            payload: s.payload,
          },
        });
        last = s.sequence;
      }
      if (page.length < 200) return last;
    }
  }

  /** The WAITING event of a run that waits for a decision. */
  private async waitingOf(run: RunView): Promise<Waiting> {
    const approval = run.status === 'WAITING_FOR_APPROVAL';
    return {
      type: 'WAITING',
      runId: run.id,
      pending: this.pendingOf(run),
      waitingSince: (run.waitingSince ?? run.updatedAt).toISOString(),
      expiresAt: approval && run.expiresAt ? run.expiresAt.toISOString() : null,
      approvalsRequired: approval
        ? (await this.configurations.getById(run.configurationId)).requiredApprovals
        : 1,
    };
  }

  /** The terminal event of a run that has settled. */
  private terminalOf(run: RunView): Terminal {
    if (run.status === 'COMPLETED') {
      return { type: 'TERMINAL', runId: run.id, outcome: 'DONE', finalContent: run.answer };
    }
    if (run.status === 'CANCELLED') return { type: 'TERMINAL', runId: run.id, outcome: 'CANCELLED' };
    return { type: 'TERMINAL', runId: run.id, outcome: 'ERROR', error: run.errorMessage ?? 'The run failed' };
  }

  private pendingOf(run: RunView): PendingTurn | null {
    try {
      const cp = this.vault.open(run.id, run.checkpoint);
      return cp.kind === 'state' ? cp.state.pending : null;
    } catch {
      return null;
    }
  }
}

/** The pause a settle announced as a TERMINAL with an AWAITING_* outcome, else null. */
function pauseOf(event: Terminal): Waiting | null {
  if (event.outcome !== 'AWAITING_APPROVAL' && event.outcome !== 'AWAITING_INPUT') return null;
  return {
    type: 'WAITING',
    runId: event.runId,
    pending: event.pending ?? null,
    waitingSince: event.waitingSince ?? null,
    expiresAt: event.expiresAt ?? null,
    approvalsRequired: event.approvalsRequired ?? 1,
  };
}
