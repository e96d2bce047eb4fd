// `npm run soak -- --minutes N [--seed S] [--workers K] [--apis K]`: random decisions, double
// clicks, stale digests, cancels and kill -9 of workers and API instances over many runs, all
// through the public GraphQL API of real processes, with a recorded history; then quiescence
// and a checker over the database and the history (the invariants of docs/run-lifecycle.md and
// docs/decisions.md). Exit code 1 when an invariant fails. The seed is printed at the start and
// in the summary: `--seed` replays the same choices (not the same timing).
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'pg';
import { cleanupAll } from '../support/cleanup';
import { createBenchDatabase, type BenchDatabase } from '../support/database';
import { demoIds } from '../support/demo';
import { describeEnvironment, type Environment } from '../support/env';
import { upsertScriptedConfiguration } from '../support/fixtures';
import { rawClient } from '../support/pg';
import { checkLine } from '../support/report';
import { roundDeep, sleep } from '../support/stats';
import { flicker, lane, killer, type Stage } from './chaos';
import { checkSoak, fates } from './checker';
import { Cluster, type RssSample } from './cluster';
import { installPageWriteLog, leaseProblems, movingRuns, readFacts } from './facts';
import { History } from './history';
import { openIdle, type Idle } from './idle';
import { memoryGrowth } from './memory';
import { parseSoakArgs, SoakUsageError, USAGE, type SoakOptions } from './options';
import { freshSeed, Random } from './random';
import { summarise } from './summary';

/** Short leases so that kills are recovered within seconds (as P6 does). */
export const LEASE_SECONDS = 4;
const REAPER_SECONDS = 1;
/** A RUNNING run whose lease expired longer ago than this is a finding (reaper + restart allowance). */
export const LEASE_GRACE_SECONDS = 20;
const QUIESCENCE_TIMEOUT_MS = 180_000;
const RSS_EVERY_MS = 5_000;
const LEASE_EVERY_MS = 2_000;

/** The soak's own configuration: three pauses (approval, input, approval) and slow rounds. */
const SOAK_MULTI = [
  { toolCalls: [{ name: 'pages_read', arguments: {} }], delayMs: 300 },
  { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Soak title one' } }] },
  {
    toolCalls: [
      {
        name: 'ask_user',
        arguments: {
          question: 'Which tone?',
          schema: {
            type: 'object',
            properties: { tone: { type: 'string', enum: ['formal', 'casual'] } },
            required: ['tone'],
            additionalProperties: false,
          },
        },
      },
    ],
    delayMs: 500,
  },
  { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Soak title two' } }], delayMs: 800 },
  { toolCalls: [{ name: 'pages_read', arguments: {} }], delayMs: 1500 },
  { text: 'Soak run done.', chunks: 4, chunkDelayMs: 100 },
];

function processEnv(db: BenchDatabase): Record<string, string> {
  return {
    DATABASE_URL: db.url,
    STATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: process.env.SOAK_LOG_LEVEL ?? 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    // why: the scenarios start many runs per user and leave many waiting.
    RUN_STARTS_PER_MINUTE: '1000000',
    RUNS_MAX_WAITING_PER_USER: '100000',
    // why: the idle measurement holds 1,000 graphql-ws connections as one user.
    WS_MAX_CONNECTIONS_PER_USER: '100000',
    RUN_LEASE_SECONDS: String(LEASE_SECONDS),
    REAPER_INTERVAL_SECONDS: String(REAPER_SECONDS),
    DECISION_PICKUP_SECONDS: '5',
    // why: above the 10 s heartbeat, so a live worker never looks dead; low, so a killed one soon does.
    WORKER_LIVENESS_SECONDS: '15',
    WORKER_CONCURRENCY: '8',
    // why: runs claimed ahead wait under their lease for a slot; the kills and the checker then
    // also cover a worker cut off while holding some (they are reaped and carried out once).
    WORKER_PREFETCH: '4',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  };
}

/** Runs `task` every `ms` until stopped; stopping cuts the wait short and waits for a task under way. */
function every(ms: number, task: () => Promise<void> | void): () => Promise<void> {
  let stopped = false;
  let wake = (): void => undefined;
  const loop = (async () => {
    while (!stopped) {
      await task();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return async () => {
    stopped = true;
    wake();
    await loop;
  };
}

/** Records RUNNING runs without a live lease (once per run and problem). */
function leaseWatch(history: History, observer: Client): () => Promise<void> {
  const seen = new Set<string>();
  return every(LEASE_EVERY_MS, async () => {
    for (const p of await leaseProblems(observer, LEASE_GRACE_SECONDS)) {
      const problem = p.noLease ? 'no lease' : 'expired';
      if (seen.has(`${p.id}:${problem}`)) continue;
      seen.add(`${p.id}:${problem}`);
      history.append({
        type: 'lease',
        runId: p.id,
        claimedBy: p.claimedBy,
        problem,
        expiredForSeconds: p.expiredFor,
      });
    }
  });
}

/** Waits until no run is QUEUED, RUNNING or DECISION_RECORDED; seconds waited. */
async function quiesce(observer: Client): Promise<number> {
  const started = Date.now();
  while ((await movingRuns(observer)) > 0 && Date.now() - started < QUIESCENCE_TIMEOUT_MS) await sleep(250);
  return (Date.now() - started) / 1000;
}

interface Chaos {
  readonly stage: Stage;
  readonly actions: number;
  readonly killed: string[];
  readonly flicks: number;
  readonly from: number;
  readonly to: number;
}

async function chaos(options: SoakOptions, stage: Stage, random: Random, switcher: Client): Promise<Chaos> {
  const from = stage.history.now();
  stage.history.append({ type: 'phase', phase: 'chaos', detail: { minutes: options.minutes } });
  let ticks = 0;
  const progress = every(15_000, () => {
    if (ticks++ === 0) return;
    const requests = stage.history.all().filter((e) => e.type === 'request').length;
    const probe = stage.cluster.sample(0).find((s) => s.member === 'api-1');
    console.log(
      `  [${(stage.history.now() / 1000).toFixed(0)} s] requests ${requests}, active runs ${stage.active.length}, ` +
        `probe RSS ${probe?.rssMb.toFixed(0) ?? '?'} MB`,
    );
  });
  const [actions, killed, flicks] = await Promise.all([
    Promise.all(Array.from({ length: options.lanes }, (_, i) => lane(stage, i + 1, random.fork(i + 1)))),
    killer(stage, random.fork(0), options.killEverySeconds),
    flicker(stage, random.fork(1000), switcher, options.flickerEverySeconds),
  ]);
  const to = stage.history.now();
  await progress();
  return { stage, actions: actions.reduce((s, n) => s + n, 0), killed, flicks, from, to };
}

async function prepare(
  db: BenchDatabase,
  observer: Client,
): Promise<{ configurations: Record<string, string>; pages: string[] }> {
  await installPageWriteLog(observer);
  await upsertScriptedConfiguration(observer, {
    identifier: 'soak-multi',
    rounds: SOAK_MULTI,
    maxIterations: 8,
  });
  // why: a deadline short enough that many of its runs expire (DENY) while actors still decide
  // others, and a quorum of two that most turns reach through several deciders.
  const write = [
    { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Soak title two' } }] },
    { text: 'Done.', delayMs: 300 },
  ];
  const deadline = await upsertScriptedConfiguration(observer, {
    identifier: 'soak-deadline',
    rounds: write,
    maxIterations: 4,
  });
  const quorum = await upsertScriptedConfiguration(observer, {
    identifier: 'soak-quorum',
    rounds: write,
    maxIterations: 4,
  });
  await observer.query('UPDATE configuration SET approval_timeout_seconds = 3 WHERE id = $1', [deadline]);
  await observer.query('UPDATE configuration SET required_approvals = 2 WHERE id = $1', [quorum]);
  const ids = await demoIds(observer);
  return { configurations: { ...ids.configurations }, pages: Object.values(ids.pages) };
}

/** What the phases of one soak share. */
interface Rig {
  readonly options: SoakOptions;
  readonly db: BenchDatabase;
  readonly out: string;
  readonly history: History;
  readonly observer: Client;
  readonly cluster: Cluster;
  readonly samples: RssSample[];
}

function newStage(rig: Rig, prepared: { configurations: Record<string, string>; pages: string[] }): Stage {
  return {
    history: rig.history,
    cluster: rig.cluster,
    tokens: rig.db.tokens,
    ...prepared,
    until: Date.now() + rig.options.minutes * 60_000,
    active: [],
    keyed: [],
    stats: { churnSubscriptions: 0, churnErrors: 0, nextWorkspace: 1000 },
  };
}

/** The chaos, then every process up again and quiescence; the chaos and the seconds waited. */
async function chaosThenRest(rig: Rig, stage: Stage, switcher: Client): Promise<[Chaos, number]> {
  const { history, cluster, observer } = rig;
  const stopRss = every(RSS_EVERY_MS, () => void rig.samples.push(...cluster.sample(history.now())));
  const stopLeases = leaseWatch(history, observer);
  const run = await chaos(rig.options, stage, new Random(rig.options.seed), switcher);
  await stopRss();
  history.append({ type: 'phase', phase: 'quiescence' });
  await cluster.reviveAll();
  const waitedSeconds = await quiesce(observer);
  await stopLeases();
  return [run, waitedSeconds];
}

/** The checker over the database and the history; writes and prints the summary. */
async function check(rig: Rig, environment: Environment, run: Chaos, waitedSeconds: number, idle: Idle) {
  const { history, options } = rig;
  history.append({ type: 'phase', phase: 'check' });
  const facts = await readFacts(rig.observer);
  const checks = [
    ...checkSoak(facts, history.all(), { waitedSeconds, graceSeconds: LEASE_GRACE_SECONDS }),
    idle.check(),
  ];
  const summary = summarise({
    options,
    environment,
    database: rig.db.name,
    out: rig.out,
    history: history.all(),
    facts,
    fates: fates(facts, history.all()),
    checks,
    memory: memoryGrowth(rig.samples, 'api-1', run.from, run.to),
    samples: rig.samples,
    run,
    idle,
  });
  const json = JSON.stringify(roundDeep(summary), null, 2) + '\n';
  writeFileSync(join(rig.out, 'summary.json'), json);
  const results = join(__dirname, '..', '..', '..', 'bench', 'results');
  mkdirSync(results, { recursive: true });
  writeFileSync(join(results, options.minutes >= 5 ? 'SOAK.json' : 'SOAK-quick.json'), json);
  for (const line of summary.lines) console.log(line);
  for (const c of checks) console.log(`  ${checkLine(c)}`);
  return checks.every((c) => c.ok);
}

async function soak(options: SoakOptions, serverUrl: string, out: string): Promise<boolean> {
  const history = new History(join(out, 'history.jsonl'));
  const db = await createBenchDatabase(serverUrl, 'soak');
  console.log(`soak: database ${db.name}${options.keepDatabase ? ' (kept afterwards)' : ''}`);
  const observer = await rawClient(db.url, 'countersign-soak-observer');
  const switcher = await rawClient(db.url, 'countersign-soak-switcher');
  const cluster = new Cluster(processEnv(db), join(out, 'logs'), history, observer);
  const rig: Rig = { options, db, out, history, observer, cluster, samples: [] };
  let idle: Idle | null = null;
  try {
    const environment = await describeEnvironment(observer);
    const prepared = await prepare(db, observer);
    history.append({ type: 'phase', phase: 'set-up', detail: { seed: options.seed, database: db.name } });
    await cluster.start(options.apis, options.workers);
    idle = await openIdle(cluster.probe(), db, prepared.configurations['demo-editor']!, options);
    console.log(
      `soak: ${options.apis} API, ${options.workers} worker processes; ${idle.runIds.length} idle runs, ` +
        `${idle.subscriptions.length} idle subscriptions on api-1`,
    );
    const [run, waitedSeconds] = await chaosThenRest(rig, newStage(rig, prepared), switcher);
    return await check(rig, environment, run, waitedSeconds, idle);
  } finally {
    await idle?.close();
    await cluster.stopAll();
    await observer.end();
    await switcher.end();
    await history.close();
    if (!options.keepDatabase) await db.drop();
  }
}

async function main(): Promise<number> {
  let options: SoakOptions;
  try {
    options = parseSoakArgs(process.argv.slice(2), freshSeed);
  } catch (e) {
    if (!(e instanceof SoakUsageError)) throw e;
    console.error(`soak: ${e.message}\n${USAGE}`);
    return 2;
  }
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    console.error(
      'soak: needs PostgreSQL (real processes share one database). Set DATABASE_URL to a server the soak may create databases on,\n' +
        '  e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run soak -- --minutes 1',
    );
    return 1;
  }
  const out =
    options.out ??
    join(tmpdir(), `countersign-soak-${new Date().toISOString().replace(/[:.]/g, '-')}-seed${options.seed}`);
  mkdirSync(join(out, 'logs'), { recursive: true });
  console.log(
    `soak: seed ${options.seed} (replay: npm run soak -- --minutes ${options.minutes} --seed ${options.seed})`,
  );
  console.log(`soak: history, summary and process logs in ${out}`);
  const ok = await soak(options, serverUrl, out);
  console.log(
    `soak: ${ok ? 'every invariant held' : 'INVARIANT FAILED'}; seed ${options.seed}; history ${join(out, 'history.jsonl')}`,
  );
  return ok ? 0 : 1;
}

let stopping = false;

function stop(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  console.error(`\nsoak: ${signal}, stopping the processes and dropping the database`);
  void cleanupAll().finally(() => process.exit(130));
}

process.on('SIGINT', stop);
process.on('SIGTERM', stop);

// why: with --keep-database the normal path leaves the database (its processes are stopped);
// cleanupAll would drop it.
const keep = process.argv.includes('--keep-database');

main().then(
  async (code) => {
    if (!keep) await cleanupAll();
    process.exit(code);
  },
  async (e: unknown) => {
    // why: on standard output, with the rest, so the end of a CI log names it.
    console.log(`\nsoak: stopped by an error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    await cleanupAll();
    process.exit(1);
  },
);
