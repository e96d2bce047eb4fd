import { Logger, makeWorkerUtils, run, type Runner, type WorkerUtils } from 'graphile-worker';
import type { Client } from 'pg';
import { CpuMeter, type CpuSpan } from './cpu-meter';
import { installedVersion } from './env';
import { rawClient } from './pg';
import { checkAll, type Check, type Figure } from './report';
import { ratio, sleep, summarize } from './stats';
import { queueWindow } from './windows';

export const GRAPHILE_VERSION = installedVersion('graphile-worker');

/** One window of graphile-worker: jobs completed, how long, and the rate. */
export interface GraphileSample {
  readonly completed: number;
  readonly seconds: number;
  readonly perSecond: number;
  /** Jobs still queued when the window ended: 0 means it ran dry (the rate is the supply's). */
  readonly left: number;
  /** CPU over the window: this process (graphile-worker's runner) and the database server. */
  readonly cpu: CpuSpan;
}

/** graphile-worker's quiet logger: the bench prints its own lines. */
const QUIET = new Logger(() => () => undefined);

/**
 * A peer baseline for P4: graphile-worker (a PostgreSQL job queue with the same
 * claim-with-SKIP-LOCKED design) on the same database, `concurrency` workers, its defaults
 * otherwise: no local queue and no completion batching (`localQueue` unset,
 * `completeJobBatchDelay` -1), so every job is fetched and completed with its own
 * statements, as our worker claims and settles each run. A job's task does the minimal
 * equivalent of a continuation's work: one conditional UPDATE of its own row.
 */
export class GraphilePeer {
  private nextRow = 1;

  private constructor(
    private readonly url: string,
    private readonly concurrency: number,
    private readonly admin: Client,
    private readonly utils: WorkerUtils,
  ) {}

  static async open(url: string, concurrency: number): Promise<GraphilePeer> {
    const admin = await rawClient(url, 'countersign-bench-graphile-admin');
    await admin.query(
      `CREATE TABLE IF NOT EXISTS bench_gw_rows (id int PRIMARY KEY, n int NOT NULL DEFAULT 0)`,
    );
    const utils = await makeWorkerUtils({ connectionString: url, logger: QUIET });
    // why: graphile-worker installs its schema (graphile_worker) on first use; done here, outside any window.
    await utils.migrate();
    return new GraphilePeer(url, concurrency, admin, utils);
  }

  /** Queued jobs not yet completed (graphile-worker deletes a job when it completes). */
  async queued(): Promise<number> {
    const r = await this.admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM graphile_worker._private_jobs`,
    );
    return r.rows[0]!.n;
  }

  /** Tops the queue up to at least `ready` jobs, each with a row of its own (outside any window). */
  async refill(ready: number): Promise<void> {
    const missing = ready - (await this.queued());
    if (missing <= 0) return;
    const first = this.nextRow;
    this.nextRow += missing;
    await this.admin.query('INSERT INTO bench_gw_rows (id) SELECT generate_series($1::int, $2::int)', [
      first,
      this.nextRow - 1,
    ]);
    const specs = Array.from({ length: missing }, (_, i) => ({
      identifier: 'bench',
      payload: { row: first + i },
    }));
    for (let i = 0; i < specs.length; i += 5000) await this.utils.addJobs(specs.slice(i, i + 5000));
    await this.admin.query('VACUUM ANALYZE graphile_worker._private_jobs');
  }

  /**
   * One measured window with a queue of 1.5x `rate` jobs (+1,000), run again where it ran dry
   * (`queueWindow`): until the twenty-third round nothing was, and the first windows measured the
   * supply (850 and 1,375 jobs/s of some 2,400, while the guess was 500/s).
   */
  window(ms: number, rate: number, onDry: (perSecond: number) => void): Promise<GraphileSample> {
    return queueWindow(this, ms, rate, { headroom: 1.5, extra: 1000, ranDry: (s) => s.left === 0 }, onDry);
  }

  /** Runs the workers for `ms` once started; jobs completed in between, from the queue's size. */
  async run(ms: number): Promise<GraphileSample> {
    const runner: Runner = await run({
      connectionString: this.url,
      concurrency: this.concurrency,
      maxPoolSize: this.concurrency + 2,
      noHandleSignals: true,
      logger: QUIET,
      taskList: {
        bench: async (payload, helpers) => {
          const { row } = payload as { row: number };
          await helpers.withPgClient((c) =>
            c.query('UPDATE bench_gw_rows SET n = n + 1 WHERE id = $1', [row]),
          );
        },
      },
    });
    try {
      const before = await this.queued();
      const t0 = process.hrtime.bigint();
      const meter = CpuMeter.start();
      await sleep(ms);
      const cpu = meter.stop();
      const after = await this.queued();
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const completed = before - after;
      return { completed, seconds, perSecond: completed / seconds, left: after, cpu };
    } finally {
      await runner.stop();
    }
  }

  /** The peer's checks over the windows it ran: its jobs, and its queue never dry. */
  async checks(windows: ReadonlyArray<GraphileSample & { readonly rep: number }>): Promise<Check[]> {
    return [
      checkAll('graphile-worker: every job ran once, none failed', windows.length, await this.problems()),
      checkAll(
        'graphile-worker: its queue never ran dry inside a window',
        windows.length,
        windows.filter((g) => g.left === 0).map((g) => `window ${g.rep} ran dry`),
      ),
    ];
  }

  /**
   * Problems: a job run twice, a failed job, a job gone without its row updated, or a job
   * queued to run again after its update. A job left locked by `stop()` after its update (its
   * completion had not committed) is in flight, not a problem: graphile-worker would run it
   * again only after its lock expires (4 hours).
   */
  private async problems(): Promise<string[]> {
    const r = await this.admin.query<{ twice: number; failed: number; lost: number; again: number }>(
      `WITH j AS (SELECT (payload->>'row')::int AS row, locked_at, last_error FROM graphile_worker._private_jobs)
       SELECT (SELECT count(*)::int FROM bench_gw_rows WHERE n > 1) AS twice,
              (SELECT count(*)::int FROM j WHERE last_error IS NOT NULL) AS failed,
              (SELECT count(*)::int FROM bench_gw_rows r WHERE n = 0 AND NOT EXISTS (SELECT 1 FROM j WHERE j.row = r.id)) AS lost,
              (SELECT count(*)::int FROM bench_gw_rows r JOIN j ON j.row = r.id WHERE r.n > 0 AND j.locked_at IS NULL) AS again`,
    );
    const { twice, failed, lost, again } = r.rows[0]!;
    const out: string[] = [];
    if (twice > 0) out.push(`${twice} jobs ran twice`);
    if (failed > 0) out.push(`${failed} jobs failed`);
    if (lost > 0) out.push(`${lost} jobs gone without their update`);
    if (again > 0) out.push(`${again} jobs queued again after their update`);
    return out;
  }

  /** Jobs whose update committed but which `stop()` left locked (their completion never committed). */
  async lockedAfterStop(): Promise<number> {
    const r = await this.admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM graphile_worker._private_jobs j JOIN bench_gw_rows r
          ON r.id = (j.payload->>'row')::int WHERE j.locked_at IS NOT NULL AND r.n > 0`,
    );
    return r.rows[0]!.n;
  }

  async close(): Promise<void> {
    await this.utils.release();
    await this.admin.end();
  }
}

/** P4's peer figures: graphile-worker beside the raw loop, and ours over it (same repetitions). */
export function graphileFigures(
  ours: readonly number[],
  raw: readonly number[],
  peer: readonly GraphileSample[],
  concurrency: number,
): Figure[] {
  if (peer.length === 0) return [];
  return [
    {
      name: `peer: graphile-worker ${GRAPHILE_VERSION} jobs per second (concurrency ${concurrency}, unbatched; task: one UPDATE)`,
      unit: '/s',
      ours: summarize(peer.map((g) => g.perSecond)),
      baseline: {
        label: `raw SKIP LOCKED claim + complete, ${concurrency} clients`,
        value: summarize(raw),
      },
      ratio: summarize(peer.map((g, i) => ratio(g.perSecond, raw[i]!))),
    },
    {
      name: 'our durable continuations per second over graphile-worker jobs per second (same repetition)',
      unit: 'x',
      ours: summarize(peer.map((g, i) => ratio(ours[i]!, g.perSecond))),
    },
  ];
}
