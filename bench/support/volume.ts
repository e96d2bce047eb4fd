/** A marker workspace for seeded runs, so that tests can tell them from the demo's. */
export const SEEDED_WORKSPACE = 7_000_000;

export interface SeedRuns {
  readonly count: number;
  /** Owners by username; runs are spread over them in turn. */
  readonly owners: readonly string[];
  /** Every `waitingEvery`-th run waits for approval (10 -> 10 %); the rest completed. */
  readonly waitingEvery: number;
  /** Steps per run (`run_step` rows, sequence 1..n). */
  readonly stepsPerRun: number;
  /** Seconds between consecutive runs' creation (0: all at the same instant, for ties). */
  readonly spacingSeconds?: number;
  /** Days before now that the newest seeded run finished (default 0). */
  readonly finishedDaysAgo?: number;
}

/** Runs a statement and answers its rows: a TypeORM DataSource's `query`, or pg's wrapped. */
export type Sql = (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

/**
 * Inserts `count` runs of demo-editor through SQL in one statement (the lists, the inbox and
 * retention only read rows, so no checkpoint is needed), and their steps in a second. Used by
 * the tests at volume and by bench P7 (in chunks).
 */
export async function seedRuns(query: Sql, seed: SeedRuns): Promise<void> {
  const owners = (await query(
    `SELECT id FROM app_user WHERE username = ANY($1) ORDER BY array_position($1, username)`,
    [seed.owners],
  )) as Array<{ id: number }>;
  const [configuration] = (await query(
    `SELECT id FROM configuration WHERE identifier = 'demo-editor'`,
  )) as Array<{
    id: number;
  }>;
  await query(
    `INSERT INTO run (id, configuration_id, owner_id, workspace_id, max_iterations, status, termination_reason,
                      waiting_since, created_at, started_at, finished_at, step_count, turn, updated_at)
     SELECT gen_random_uuid(), $1, ($2::int[])[1 + (g % array_length($2::int[], 1))], $3, 10,
            CASE WHEN g % $4 = 0 THEN 'WAITING_FOR_APPROVAL' ELSE 'COMPLETED' END,
            CASE WHEN g % $4 = 0 THEN NULL ELSE 'COMPLETED' END,
            CASE WHEN g % $4 = 0 THEN t.at + interval '1 second' END,
            t.at, t.at,
            CASE WHEN g % $4 = 0 THEN NULL ELSE t.at + interval '2 seconds' END,
            $5, CASE WHEN g % $4 = 0 THEN 1 ELSE 0 END, t.at
       FROM generate_series(1, $6) g,
            LATERAL (SELECT now() - make_interval(secs => $8::float8 * 86400 + g * $7::float8) AS at) t`,
    [
      configuration!.id,
      owners.map((o) => o.id),
      SEEDED_WORKSPACE,
      seed.waitingEvery,
      seed.stepsPerRun,
      seed.count,
      seed.spacingSeconds ?? 1,
      seed.finishedDaysAgo ?? 0,
    ],
  );
  if (seed.stepsPerRun > 0) {
    await query(
      `INSERT INTO run_step (run_id, sequence, kind, round, payload, created_at)
       SELECT r.id, s, CASE WHEN s % 2 = 1 THEN 'REQUEST' ELSE 'LLM' END, (s + 1) / 2, '{}'::jsonb, r.created_at
         FROM run r CROSS JOIN generate_series(1, $2) s
        WHERE r.workspace_id = $1 AND NOT EXISTS (SELECT 1 FROM run_step x WHERE x.run_id = r.id)`,
      [SEEDED_WORKSPACE, seed.stepsPerRun],
    );
  }
}
