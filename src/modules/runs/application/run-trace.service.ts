import { Injectable } from '@nestjs/common';
import { RunReadsRepository } from '../persistence/run-reads.repository';
import type { PendingTurn } from '../../../agent';
import { Authenticator } from '../../../platform/auth/authenticator';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { EventBus } from '../../../platform/pubsub/event-bus';
import { subscriptionStream, StreamControl } from '../../../platform/pubsub/subscription-stream';
import { forbidden, notFound } from '../../../common/refusal';
import { parseUuid } from '../../../common/ids';
import { TokensService } from '../../auth';
import { isTerminal, isWaiting } from '../core/run-status';
import {} from '../persistence/runs.repository';
import type { RunView } from '../core/run-view';
import { TraceEvent, traceTopic } from './run-events';
import { StateVault } from './state-vault';

/**
 * The admin trace (`runEvents`): the stored steps after `afterSequence` (privacy-filtered, from
 * storage), then the live unfiltered steps, with no gap and no duplicate at the seam, then
 * exactly one TERMINAL event. Authorised at the start and again for every event.
 */
@Injectable()
export class RunTraceService {
  constructor(
    private readonly reads: RunReadsRepository,
    private readonly bus: EventBus,
    private readonly authenticator: Authenticator,
    private readonly vault: StateVault,
    private readonly tokens: TokensService,
  ) {}

  async open(
    user: AuthUser,
    runId: string,
    afterSequence: number,
  ): Promise<AsyncIterableIterator<TraceEvent>> {
    const id = parseUuid(runId, 'runId');
    // why: the connection's user may be stale (revoked token, admin flag removed): the stored
    // steps replayed at the start must not reach them.
    if (!user.isAdmin || (await this.tokens.current(user))?.isAdmin !== true) {
      throw forbidden('The run trace is for admins');
    }
    if (!(await this.reads.findById(id))) throw notFound('Run not found');
    let last = Math.max(afterSequence, 0);
    return subscriptionStream<TraceEvent, TraceEvent>({
      subscribe: (push) => this.bus.subscribe<TraceEvent>(traceTopic(id), push),
      start: async (control) => {
        last = await this.replay(id, last, control);
        const run = await this.reads.findById(id);
        if (run && (isTerminal(run.status) || isWaiting(run.status))) {
          last = await this.replay(id, last, control);
          control.emit(this.terminalOf(run));
          control.end();
        }
      },
      onEvent: async (event, control) => {
        if (!(await this.stillAdmin(user)))
          return control.fail(forbidden('Access to the run trace was lost'));
        if (event.type === 'STEP') {
          if (event.step.sequence <= last) return;
          last = event.step.sequence;
          control.emit(event);
          return;
        }
        control.emit(event);
        control.end();
      },
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

  /** The terminal event of a run that has already stopped moving. */
  private terminalOf(run: RunView): Extract<TraceEvent, { type: 'TERMINAL' }> {
    if (isWaiting(run.status)) {
      const pending = this.pendingOf(run);
      return {
        type: 'TERMINAL',
        runId: run.id,
        outcome: run.status === 'WAITING_FOR_APPROVAL' ? 'AWAITING_APPROVAL' : 'AWAITING_INPUT',
        pending,
        waitingSince: (run.waitingSince ?? run.updatedAt).toISOString(),
      };
    }
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

  private async stillAdmin(user: AuthUser): Promise<boolean> {
    const fresh = await this.authenticator.refresh(user);
    return fresh?.isAdmin === true;
  }
}
