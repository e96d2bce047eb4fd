import type { Client } from 'pg';
import { rawClient } from './pg';
import { CpuMeter, type CpuSpan } from './cpu-meter';
import { queueWindow } from './windows';

/** One window of the raw loop: jobs completed, how long, and commits that did not change one row. */
export interface ClaimLoopSample {
  readonly completed: number;
  readonly seconds: number;
  readonly perSecond: number;
  /** CPU over the window: this process (the raw clients) and the database server. */
  readonly cpu: CpuSpan;
  /** Completions that did not change exactly one row (must be 0). */
  readonly failures: number;
  /** Claims that found no job (the queue ran dry; each stops its client). */
  readonly empty: number;
  /** Jobs completed in the window's first and second half: a loop that slows as it goes shows here. */
  readonly halves: readonly [number, number];
}

/**
 * The baseline of durable throughput (P4), pgbench-style: `clients` raw `pg` connections
 * (autocommit, synchronous commit) each looping "claim the oldest ready job with
 * `FOR UPDATE SKIP LOCKED` (one commit), complete it under its claim (one commit)" on a
 * `bench_jobs` table in the same database, the cheapest form of the project's own claim and
 * settle. Both are prepared statements (pgbench's `-M prepared`), as the app's are: sent
 * unnamed, each was parsed and planned on every call, a cost the app does not pay. A job
 * claimed twice shows in `claims > 1`.
 */
export class ClaimLoop {
  private constructor(
    private readonly admin: Client,
    private readonly clients: Client[],
  ) {}

  static async open(url: string, clients: number): Promise<ClaimLoop> {
    const admin = await rawClient(url, 'countersign-bench-claim-admin');
    await admin.query(`CREATE TABLE IF NOT EXISTS bench_jobs (
        id bigserial PRIMARY KEY, status varchar(16) NOT NULL DEFAULT 'READY', claimed_by int,
        claims int NOT NULL DEFAULT 0, completed_at timestamptz)`);
    // why: a partial index of the ready jobs in claim order, as the worker's own pickup has
    // (run_recorded_idx). With an index on status alone the claim walked the primary key past
    // every job already claimed in the window, so the loop slowed as its window went on (about
    // 2,500 down to 800 jobs/s over ten seconds), and the full run's baseline measured that.
    await admin.query(
      `CREATE INDEX IF NOT EXISTS bench_jobs_ready_idx ON bench_jobs (id) WHERE status = 'READY'`,
    );
    const pool = await Promise.all(
      Array.from({ length: clients }, (_, i) => rawClient(url, `countersign-bench-claim-${i}`)),
    );
    return new ClaimLoop(admin, pool);
  }

  /**
   * Tops the ready jobs up to at least `ready`, after removing the completed ones and
   * vacuuming (outside any measurement): without it the dead tuples of earlier windows slow
   * the SKIP LOCKED scan down window after window (autovacuum may be off), which would flatter
   * the ratio.
   */
  async refill(ready: number): Promise<void> {
    await this.admin.query(`DELETE FROM bench_jobs WHERE status = 'DONE'`);
    await this.admin.query('VACUUM bench_jobs');
    const r = await this.admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM bench_jobs WHERE status = 'READY'`,
    );
    const missing = ready - (r.rows[0]?.n ?? 0);
    if (missing > 0) {
      await this.admin.query('INSERT INTO bench_jobs (status) SELECT $1 FROM generate_series(1, $2)', [
        'READY',
        missing,
      ]);
      await this.admin.query('ANALYZE bench_jobs');
    }
  }

  /**
   * One measured window with twice `rate` jobs ready (+1,000), run again where its queue ran dry
   * (`queueWindow`): a claim that found no job stops its client, so such a window measured the supply.
   */
  window(ms: number, rate: number, onDry: (perSecond: number) => void): Promise<ClaimLoopSample> {
    return queueWindow(this, ms, rate, { headroom: 2, extra: 1000, ranDry: (s) => s.empty > 0 }, onDry);
  }

  /** Every client claims and completes jobs until `ms` have passed, or until a claim finds no job. */
  async run(ms: number): Promise<ClaimLoopSample> {
    const started = process.hrtime.bigint();
    const meter = CpuMeter.start();
    const deadline = Date.now() + ms;
    const middle = deadline - ms / 2;
    const halves: [number, number] = [0, 0];
    let completed = 0;
    let failures = 0;
    let empty = 0;
    await Promise.all(
      this.clients.map(async (client, worker) => {
        while (Date.now() < deadline) {
          const claimed = await client.query<{ id: string }>({
            name: 'bench-claim',
            text: `UPDATE bench_jobs j SET status = 'RUNNING', claimed_by = $1, claims = j.claims + 1
               FROM (SELECT id FROM bench_jobs WHERE status = 'READY' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) d
              WHERE j.id = d.id RETURNING j.id`,
            values: [worker],
          });
          const id = claimed.rows[0]?.id;
          if (!id) {
            empty++;
            return;
          }
          const done = await client.query({
            name: 'bench-complete',
            text: `UPDATE bench_jobs SET status = 'DONE', completed_at = now()
              WHERE id = $1 AND status = 'RUNNING' AND claimed_by = $2`,
            values: [id, worker],
          });
          if (done.rowCount === 1) {
            completed++;
            halves[Date.now() < middle ? 0 : 1]++;
          } else failures++;
        }
      }),
    );
    const cpu = meter.stop();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { completed, seconds, perSecond: completed / seconds, failures, empty, cpu, halves };
  }

  /**
   * Problems over the windows run: a job claimed more than once, or a claim that found no job
   * (the client stops there: the queue ran dry, and the window measured the supply).
   */
  async problems(samples: ReadonlyArray<ClaimLoopSample & { readonly rep: number }>): Promise<string[]> {
    const r = await this.admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM bench_jobs WHERE claims > 1',
    );
    const twice = r.rows[0]?.n ?? 0;
    return [
      ...(twice > 0 ? [`${twice} jobs claimed twice`] : []),
      ...samples
        .filter((w) => w.failures > 0)
        .map((w) => `window ${w.rep}: ${w.failures} completions changed no row`),
      ...samples
        .filter((w) => w.empty > 0)
        .map((w) => `window ${w.rep}: its queue ran dry (${w.empty} empty claims)`),
    ];
  }

  async close(): Promise<void> {
    await Promise.all([this.admin, ...this.clients].map((c) => c.end().catch(() => undefined)));
  }
}
