// P2's measurements: 64 concurrent approveRun on one waiting run (a double-click storm), and
// the same race in raw SQL: 64 connections doing the same conditional UPDATE at once.
import type { Client } from 'pg';
import { bootApp, type BenchApp } from '../support/app';
import type { BenchDatabase } from '../support/database';
import { approve, type Answer, type WaitingRun } from '../support/decisions';
import { demoIds, type DemoIds } from '../support/demo';
import { upsertScriptedConfiguration } from '../support/fixtures';
import type { GraphQLClient } from '../support/graphql';
import { rawClient } from '../support/pg';
import { QueryCounter, type QueryCount } from '../support/query-counter';
import { msSince } from '../support/stats';

export interface Rig {
  readonly db: BenchDatabase;
  readonly app: BenchApp;
  readonly observer: Client;
  readonly ids: DemoIds;
  /** The storm configuration: one approval pause, then a held final answer. */
  readonly configurationId: string;
  /** The page every storm run proposes to change (Home). */
  readonly pageId: string;
  readonly owner: GraphQLClient;
  /** The double-clicker (carol: editors + approvers). */
  readonly clicker: GraphQLClient;
  /** The raw racers: one connection each, on the same database. */
  readonly racers: Client[];
  readonly queries: QueryCounter;
}

/**
 * How long the continuation's last round waits before answering: the run stays RUNNING for
 * the whole storm, so every late racer meets a run that is moving on its turn (ALREADY_RESUMING)
 * rather than one that already finished (RUN_NOT_WAITING, also correct, but not this race).
 */
export const HOLD_MS = 2_000;

/** The SEO title every storm run proposes. */
const TITLE = 'Storm-tested title';

export async function prepareRig(db: BenchDatabase, racers: number): Promise<Rig> {
  // why: the app logs every refused decision at error level with its stack (Nest's
  // ExternalExceptionFilter logs any thrown Error that is not an IntrinsicException, and
  // Refusal is not one): 63 lines per storm would bury the bench output. BENCH_LOG_LEVEL=error
  // shows them (and measures their cost).
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'fatal';
  const app = await bootApp(db, { env: { DECISION_PATH: 'inline', LOG_LEVEL: logLevel } });
  const clients: Client[] = [];
  try {
    const observer = await rawClient(db.url, 'countersign-bench-observer');
    clients.push(observer);
    await observer.query(`CREATE TABLE bench_storm (id int PRIMARY KEY, status text NOT NULL)`);
    await observer.query(`INSERT INTO bench_storm (id, status) VALUES (1, 'WAITING')`);
    const configurationId = await upsertScriptedConfiguration(observer, {
      identifier: 'bench-p2-storm',
      rounds: [
        { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: TITLE } }] },
        { text: 'Done.', delayMs: HOLD_MS },
      ],
      maxIterations: 3,
    });
    const ids = await demoIds(observer);
    const pageId = ids.pages['/']!;
    // why: the runs are all started before the first storm, and a write re-checks its preview
    // when it executes (docs/run-lifecycle.md): had the first continuation changed the title, every
    // later run would pause again on a new turn. With the title already set, every preview stays
    // the same from the pause to the write.
    await observer.query(
      'UPDATE page_text SET seo_title = $2 WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0',
      [pageId, TITLE],
    );
    for (let i = 0; i < racers; i++) clients.push(await rawClient(db.url, `countersign-bench-racer-${i}`));
    return {
      db,
      app,
      observer,
      ids,
      configurationId,
      pageId,
      owner: app.gql.as(db.tokens.alice!),
      clicker: app.gql.as(db.tokens.carol!),
      racers: clients.slice(1),
      queries: QueryCounter.install(),
    };
  } catch (e) {
    for (const c of clients) await c.end().catch(() => undefined);
    await app.close();
    throw e;
  }
}

export async function releaseRig(rig: Rig): Promise<void> {
  for (const c of rig.racers) await c.end().catch(() => undefined);
  await rig.observer.end();
  await rig.app.close();
}

/** One storm on the app. */
export interface StormSample {
  readonly storm: number;
  readonly runId: string;
  /** First request sent .. last response in. */
  readonly wallMs: number;
  readonly answers: Answer[];
  readonly queries: QueryCount;
}

/** `racers` concurrent approveRun of the same user on the same waiting run. */
export async function appStorm(
  rig: Rig,
  run: WaitingRun,
  racers: number,
  storm: number,
): Promise<StormSample> {
  rig.queries.start();
  const mark = process.hrtime.bigint();
  const answers = await Promise.all(Array.from({ length: racers }, () => approve(rig.clicker, run)));
  const wallMs = msSince(mark);
  return { storm, runId: run.runId, wallMs, answers, queries: rig.queries.stop() };
}

const VIEWER = `query BenchViewer { viewer { user { id } } }`;

/**
 * The floor under a storm: the same number of concurrent requests of the same user on the
 * same HTTP + GraphQL + token-check path, doing nothing (`viewer`); wall time in ms.
 */
export async function viewerStorm(rig: Rig, racers: number): Promise<number> {
  const mark = process.hrtime.bigint();
  await Promise.all(Array.from({ length: racers }, () => rig.clicker.must(VIEWER)));
  return msSince(mark);
}

/** One storm of raw racers. */
export interface RawStormSample {
  readonly storm: number;
  readonly wallMs: number;
  /** Racers whose UPDATE changed the row (must be 1). */
  readonly winners: number;
}

const RACE = `UPDATE bench_storm SET status = 'RUNNING' WHERE id = $1 AND status = 'WAITING'`;

/**
 * Every racer sends the same conditional UPDATE (autocommit, synchronous commit) at once; one
 * changes the row, the others wait on its row lock and find it no longer WAITING. The reset
 * afterwards is outside the measurement.
 */
export async function rawStorm(rig: Rig, storm: number): Promise<RawStormSample> {
  const mark = process.hrtime.bigint();
  const results = await Promise.all(rig.racers.map((c) => c.query(RACE, [1])));
  const wallMs = msSince(mark);
  await rig.observer.query(`UPDATE bench_storm SET status = 'WAITING' WHERE id = 1`);
  return { storm, wallMs, winners: results.filter((r) => r.rowCount === 1).length };
}

/** How the answers of one storm split: winners (receipts), codes, server errors. */
export interface StormOutcome {
  readonly winners: number;
  readonly codes: Record<string, number>;
  /** HTTP 5xx or INTERNAL_SERVER_ERROR. */
  readonly serverErrors: number;
}

export function outcomeOf(s: StormSample): StormOutcome {
  const codes: Record<string, number> = {};
  let serverErrors = 0;
  for (const a of s.answers) {
    for (const c of a.codes) codes[c] = (codes[c] ?? 0) + 1;
    if (a.status >= 500 || a.codes.includes('INTERNAL_SERVER_ERROR')) serverErrors++;
  }
  return { winners: s.answers.filter((a) => a.receipt !== null).length, codes, serverErrors };
}
