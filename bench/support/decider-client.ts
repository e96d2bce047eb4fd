// P1's client side of one decision, wherever it runs: in the app's process (the bench's first
// instrument) or in the client host's child process (subscriber-host-child.ts), where reading
// the receipt and the frame does not wait for the app's own work on a shared event loop. Times
// are taken with the clock the caller passes (the parent's `performance.now()`, or the child's
// absolute time that the parent maps onto its own).
import { approve, RUN_PROGRESS, type Answer, type WaitingRun } from './decisions';
import type { GraphQLClient } from './graphql';
import { sleep } from './stats';
import type { GqlWsConnection, WsMessage, WsSubscription } from './ws-subscriber';

export interface ProgressFrame {
  readonly kind: string;
  readonly stepCount: number;
  readonly status: string;
}

/** One decision as its client saw it, on the caller's clock. */
export interface ClientDecision {
  readonly answer: Answer;
  /**
   * approveRun about to be sent: before the client builds its HTTP request (the URL, the
   * `ClientRequest`, the agent's socket): a standalone pair measured that part at 0.17 ms
   * (bench/README.md, "Issue 13, twenty-first round").
   */
  readonly sentAt: number;
  /** The receipt parsed. */
  readonly receiptAt: number;
  /** The first PROGRESS frame with a step count above the snapshot's; NaN without one. */
  readonly firstAt: number;
  /** The frames the subscriber got (snapshot first). */
  readonly frames: ProgressFrame[];
  /** How the stream ended (empty for a clean end). */
  readonly streamErrors: unknown[];
}

/** A subscription to a waiting run's progress whose snapshot has arrived. */
export interface Watch {
  readonly run: WaitingRun;
  readonly frames: ProgressFrame[];
  readonly sub: WsSubscription;
  /** The arrival (on the caller's clock) of the first frame past the waiting step count. */
  firstAt: number;
}

const progressOf = (m: WsMessage): ProgressFrame =>
  (m.payload as { data: { runProgress: ProgressFrame } }).data.runProgress;

/**
 * Subscribes to the run's progress and waits for the snapshot. `toClock` turns a frame's
 * arrival (`performance.now()` of this process) into the caller's clock.
 */
export async function watch(
  subscriber: GqlWsConnection,
  run: WaitingRun,
  toClock: (at: number) => number,
): Promise<Watch> {
  const frames: ProgressFrame[] = [];
  const watching: Watch = {
    run,
    frames,
    firstAt: NaN,
    sub: subscriber.subscribe(RUN_PROGRESS, { runId: run.runId }, (_raw, message, at) => {
      const frame = progressOf(message);
      frames.push(frame);
      if (Number.isNaN(watching.firstAt) && frame.kind === 'PROGRESS' && frame.stepCount > run.stepCount) {
        watching.firstAt = toClock(at);
      }
    }),
  };
  const snapshotBy = Date.now() + 10_000;
  while (frames.length === 0 && !watching.sub.ended() && Date.now() < snapshotBy) await sleep(1);
  if (frames.length === 0) {
    throw new Error(`no snapshot for run ${run.runId}: ${JSON.stringify(watching.sub.errors)}`);
  }
  return watching;
}

/** Approves the watched run and waits until its stream ends (SETTLED) or 30 s passed. */
export async function decideWatched(
  watching: Watch,
  approver: GraphQLClient,
  now: () => number,
): Promise<ClientDecision> {
  const sentAt = now();
  const answer = await approve(approver, watching.run);
  const receiptAt = now();
  await Promise.race([watching.sub.done, sleep(30_000)]);
  return {
    answer,
    sentAt,
    receiptAt,
    firstAt: watching.firstAt,
    frames: watching.frames,
    streamErrors: watching.sub.errors,
  };
}
