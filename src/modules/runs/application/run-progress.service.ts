import { Injectable } from '@nestjs/common';
import { RunReadsRepository } from '../persistence/run-reads.repository';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { Authenticator } from '../../../platform/auth/authenticator';
import { EventBus } from '../../../platform/pubsub/event-bus';
import { StreamControl, subscriptionStream } from '../../../platform/pubsub/subscription-stream';
import { parseUuid } from '../../../common/ids';
import { forbidden, notFound } from '../../../common/refusal';
import { mayKnowRun } from '../core/run-access.policy';
import { isTerminal, RunStatus } from '../core/run-status';
import { ProgressEvent, progressTopic } from './run-events';

/**
 * `runProgress`: counts only, for anyone who may read or decide the run. A snapshot first;
 * then one PROGRESS per step (and keep-alives while an answer streams); SETTLED last, once
 * the run stops moving. Re-authorised for every event: a revoked token or a lost grant ends
 * the stream with FORBIDDEN instead of delivering the next event.
 */
@Injectable()
export class RunProgressService {
  constructor(
    private readonly reads: RunReadsRepository,
    private readonly bus: EventBus,
    private readonly authenticator: Authenticator,
  ) {}

  /**
   * `viewer` is the caller as stored at this operation's start: over graphql-ws the context
   * reads the token and its user again for every operation (graphqlContext), so a token revoked
   * or a grant lost since the connection opened gets no snapshot of a new stream. Reading it a
   * second time here cost a query per subscriber opened (bench M1).
   */
  async open(viewer: AuthUser, runId: string): Promise<AsyncIterableIterator<ProgressEvent>> {
    const id = parseUuid(runId, 'runId');
    const run = await this.reads.findProgress(id);
    if (!run || !mayKnowRun(viewer, run)) throw notFound('Run not found');
    const ownerId = run.ownerId;
    let snapshot: { stepCount: number; status: string; turn: number } | null = null;
    const deliver = (
      fresh: AuthUser | null,
      event: ProgressEvent,
      control: StreamControl<ProgressEvent>,
    ): void => {
      if (fresh === null || !mayKnowRun(fresh, { ownerId })) {
        return control.fail(forbidden('Access to this run was lost'));
      }
      // why: events published before the snapshot was read are already in it; a SETTLED that
      // the snapshot already shows must not end a stream opened on a waiting run.
      if (snapshot && !newer(event, snapshot)) return;
      snapshot = { stepCount: event.stepCount, status: event.status, turn: event.turn };
      control.emit(event);
      if (event.kind === 'SETTLED') control.end();
    };
    return subscriptionStream<ProgressEvent, ProgressEvent>({
      subscribe: (push) => this.bus.subscribe<ProgressEvent>(progressTopic(id), push),
      start: async (control) => {
        const now = await this.reads.findProgress(id);
        if (!now) return control.fail(notFound('Run not found'));
        snapshot = { stepCount: now.stepCount, status: now.status, turn: now.turn };
        const base = { runId: id, stepCount: now.stepCount, status: now.status as RunStatus, turn: now.turn };
        control.emit({ kind: 'PROGRESS', ...base, keepAlive: false });
        if (isTerminal(now.status)) {
          control.emit({ kind: 'SETTLED', ...base, keepAlive: false });
          control.end();
        }
      },
      // why: re-authorised for every event; the run's owner never changes, so no run lookup.
      onEvent: (event, control) => this.authenticator.withRefreshed(viewer, event, control, deliver),
    });
  }
}

function newer(event: ProgressEvent, seen: { stepCount: number; status: string; turn: number }): boolean {
  if (event.stepCount > seen.stepCount || event.turn > seen.turn) return true;
  if (event.stepCount < seen.stepCount || event.turn < seen.turn) return false;
  if (event.kind === 'PROGRESS' && event.keepAlive) return true;
  return event.status !== seen.status;
}
