import type { Client } from 'pg';
import { rawClient } from './pg';
import { msSince } from './stats';

/** The commits of one batch: latency of each, and whether each did exactly what it should. */
export interface CommitBatch {
  readonly latenciesMs: number[];
  /** Commits that did not change exactly one row (must be 0). */
  readonly failures: number;
}

/**
 * The cheapest durable write there is, as the baseline for anything that commits: one
 * single-row statement in autocommit with synchronous commit, through a raw `pg` client on
 * the same database. Two forms: a conditional UPDATE (`... WHERE id = 1 AND n = $expected`,
 * the shape of every run transition) and a one-row INSERT (the shape of a step).
 */
export class CommitBaseline {
  private expected = 0;

  private constructor(private readonly client: Client) {}

  /** Creates its two tables in the bench database (outside any measurement). */
  static async open(url: string): Promise<CommitBaseline> {
    const client = await rawClient(url, 'countersign-bench-baseline');
    await client.query(`CREATE TABLE IF NOT EXISTS bench_commit (id int PRIMARY KEY, n bigint NOT NULL)`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS bench_commit_log (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), note text NOT NULL)`,
    );
    await client.query('INSERT INTO bench_commit (id, n) VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET n = 0');
    return new CommitBaseline(client);
  }

  /** `count` conditional UPDATEs of one row, one commit each. */
  async updates(count: number): Promise<CommitBatch> {
    const latenciesMs: number[] = [];
    let failures = 0;
    for (let i = 0; i < count; i++) {
      const mark = process.hrtime.bigint();
      const r = await this.client.query('UPDATE bench_commit SET n = n + 1 WHERE id = 1 AND n = $1', [
        this.expected,
      ]);
      latenciesMs.push(msSince(mark));
      if (r.rowCount === 1) this.expected++;
      else failures++;
    }
    return { latenciesMs, failures };
  }

  /** `count` one-row INSERTs, one commit each. */
  async inserts(count: number): Promise<CommitBatch> {
    const latenciesMs: number[] = [];
    let failures = 0;
    for (let i = 0; i < count; i++) {
      const mark = process.hrtime.bigint();
      const r = await this.client.query('INSERT INTO bench_commit_log (note) VALUES ($1)', [`commit ${i}`]);
      latenciesMs.push(msSince(mark));
      if (r.rowCount !== 1) failures++;
    }
    return { latenciesMs, failures };
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
