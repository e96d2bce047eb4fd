/** What a fan-out subscriber is subscribed to: the admin trace, or the count-only progress. */
export type Audience = 'trace' | 'progress';

/**
 * An event of a run as both sides know it: `s<n>` for step n (a trace STEP with sequence n, a
 * progress PROGRESS with stepCount n), `end` for the last event (TERMINAL, SETTLED).
 */
export type EventKey = string;

export const stepKey = (n: number): EventKey => `s${n}`;
export const END: EventKey = 'end';

/** One frame a subscriber received during the measured phase. */
export interface Delivery {
  readonly key: EventKey;
  /** performance.now() when the frame came off the socket. */
  readonly at: number;
}

/** Everything one subscriber saw, reduced to what the checks and figures need. */
export interface SubscriberLog {
  readonly audience: Audience;
  /** The key of the first frame (snapshot or replayed step), before the measured phase. */
  first: EventKey | null;
  readonly live: Delivery[];
  /** SETTLED status or TERMINAL outcome. */
  end: string | null;
  keepAlives: number;
  /** Count-only frames that carried the sentinel or any field beyond the six of the type. */
  leaks: number;
  /** Frames that carried the sentinel (trace frames may, they are the admin's full view). */
  sentinelFrames: number;
  readonly errors: unknown[];
}

export function newLog(audience: Audience): SubscriberLog {
  return {
    audience,
    first: null,
    live: [],
    end: null,
    keepAlives: 0,
    leaks: 0,
    sentinelFrames: 0,
    errors: [],
  };
}

/**
 * What must be wrong with a subscriber's stream for it to fail the no-gap check: the first
 * frame is step `from` (snapshot or replay), then every step from+1..to exactly once and in
 * order, then the end event with `endValue`, and no error.
 */
export function streamProblems(log: SubscriberLog, from: number, to: number, endValue: string): string[] {
  const problems: string[] = [];
  if (log.first !== stepKey(from)) problems.push(`first frame ${log.first}, expected ${stepKey(from)}`);
  const expected = [...Array.from({ length: to - from }, (_, i) => stepKey(from + 1 + i)), END];
  const got = log.live.map((d) => d.key);
  const at = expected.findIndex((k, i) => got[i] !== k);
  if (at >= 0 || got.length !== expected.length) {
    const i = at >= 0 ? at : expected.length;
    problems.push(
      `frame ${i + 1} of the live phase was ${got[i] ?? 'missing'}, expected ${expected[i] ?? 'nothing'}`,
    );
  }
  if (log.end !== endValue) problems.push(`ended ${log.end}, expected ${endValue}`);
  if (log.errors.length > 0) problems.push(`errors ${JSON.stringify(log.errors).slice(0, 200)}`);
  return problems;
}

/** Delivery figures of one fan-out: every frame against the publish of its event. */
export interface FanoutFigures {
  readonly deliveries: number;
  /** Deliveries per second from the first publish to the last arrival. */
  readonly rate: number;
  /** Per delivery: arrival minus its event's publish, ms. */
  readonly latenciesMs: number[];
  /** Per event (audience and key): its last delivery minus its publish, ms. */
  readonly lastDeliveryMs: number[];
  /** Deliveries whose event was never seen published (must be 0). */
  readonly unmatched: number;
}

export function fanoutFigures(
  logs: readonly SubscriberLog[],
  published: Readonly<Record<Audience, ReadonlyMap<EventKey, number>>>,
): FanoutFigures {
  const latenciesMs: number[] = [];
  const last = new Map<string, number>();
  let unmatched = 0;
  let lastArrival = -Infinity;
  for (const log of logs) {
    const times = published[log.audience];
    for (const d of log.live) {
      const at = times.get(d.key);
      if (at === undefined) {
        unmatched++;
        continue;
      }
      const ms = d.at - at;
      latenciesMs.push(ms);
      const event = `${log.audience}:${d.key}`;
      last.set(event, Math.max(last.get(event) ?? -Infinity, ms));
      lastArrival = Math.max(lastArrival, d.at);
    }
  }
  const firstPublish = Math.min(...[...published.trace.values(), ...published.progress.values()]);
  const windowMs = lastArrival - firstPublish;
  return {
    deliveries: latenciesMs.length,
    rate: windowMs > 0 ? latenciesMs.length / (windowMs / 1000) : NaN,
    latenciesMs,
    lastDeliveryMs: [...last.values()],
    unmatched,
  };
}

/** The six fields of RunProgressEvent: a count-only frame may carry nothing else. */
const PROGRESS_FIELDS = 'keepAlive,kind,runId,status,stepCount,turn';

interface TraceFrame {
  kind: 'STEP' | 'TERMINAL' | 'TEXT_DELTA' | 'WAITING';
  step: { sequence: number } | null;
  outcome: string | null;
}
interface ProgressFrame {
  kind: 'PROGRESS' | 'SETTLED';
  stepCount: number;
  status: string;
  keepAlive: boolean;
}

/** A `next` frame's payload as the subscriber host hands it to `recordFrame`. */
interface NextPayload {
  readonly payload?: unknown;
}

/**
 * Records one `next` frame of a P3 subscriber in its log: the first frame (snapshot or replay)
 * as `first`, then each live step and the end with its arrival time. `sample` keeps the raw
 * text of the live frames (the raw baseline sends the very same bytes).
 */
export function recordFrame(
  log: SubscriberLog,
  sentinel: string,
  sample: string[] | null,
  raw: string,
  message: NextPayload,
  at: number,
): void {
  const data = (message.payload as { data?: Record<string, unknown> } | undefined)?.data ?? {};
  const hasSentinel = raw.includes(sentinel);
  if (hasSentinel) log.sentinelFrames++;
  let key: EventKey;
  if (log.audience === 'progress') {
    const f = data.runProgress as ProgressFrame;
    if (hasSentinel || Object.keys(f).sort().join(',') !== PROGRESS_FIELDS) log.leaks++;
    if (f.keepAlive) {
      log.keepAlives++;
      return;
    }
    key = f.kind === 'SETTLED' ? END : stepKey(f.stepCount);
    if (f.kind === 'SETTLED') log.end = f.status;
  } else {
    const f = data.runEvents as TraceFrame;
    // why: the trace also carries TEXT_DELTA and WAITING frames; P3 times the steps and the end.
    if (f.kind !== 'STEP' && f.kind !== 'TERMINAL') return;
    key = f.kind === 'TERMINAL' ? END : stepKey(f.step!.sequence);
    if (f.kind === 'TERMINAL') log.end = f.outcome === 'DONE' ? 'COMPLETED' : f.outcome;
  }
  if (log.first === null) {
    log.first = key;
    return;
  }
  log.live.push({ key, at });
  sample?.push(raw);
}
