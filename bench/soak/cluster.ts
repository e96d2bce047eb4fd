import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'pg';
import { onCleanup } from '../support/cleanup';
import { sleep } from '../support/stats';
import type { History } from './history';
import type { Random } from './random';
import { freePort } from '../support/free-port';
import { PRODUCTION_NODE_FLAGS } from '../support/api-process';

/** The built entry points (`npm run soak` builds first). */
const DIST_SRC = join(__dirname, '..', '..', 'src');
const SERVER_ENTRY = join(DIST_SRC, 'main.js');
const WORKER_ENTRY = join(DIST_SRC, 'worker.js');

/** One process of the cluster as it runs now (a restart makes a new one under the same name). */
export interface Member {
  /** `api-1`, `worker-2`: stable across restarts. */
  readonly name: string;
  readonly kind: 'api' | 'worker';
  readonly pid: number;
  /** How many times this name was started (1 for the first). */
  readonly generation: number;
  /** API: `http://127.0.0.1:<port>/graphql`; null for a worker. */
  readonly httpUrl: string | null;
  readonly wsUrl: string | null;
  /** `api:<host>:<pid>` / `worker:<host>:<pid>`: its `claimed_by` on the runs it executes. */
  readonly claimName: string;
  alive(): boolean;
}

interface Running extends Member {
  /** Up (answered /health, or its heartbeat row exists) and not exited. */
  ready: boolean;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  readonly stop: () => Promise<void>;
}

/** A resident-set sample of one process. */
export interface RssSample {
  readonly t: number;
  readonly member: string;
  readonly pid: number;
  readonly rssMb: number;
}

/** VmRSS of a process in MB; null once it is gone. */
export function rssOf(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

/**
 * The API instances and workers of the soak, each a child process of the soak on the soak's
 * database (`node --max-semi-space-size=4 dist/src/main.js --api-only` as production starts it,
 * `node dist/src/worker.js`), with their output
 * in a log file each. `api-1` is the probe: never killed, its resident set is followed.
 */
export class Cluster {
  private readonly members = new Map<string, Running>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly env: Record<string, string>,
    private readonly logDir: string,
    private readonly history: History,
    private readonly observer: Client,
  ) {
    for (const entry of [SERVER_ENTRY, WORKER_ENTRY]) {
      if (!existsSync(entry)) throw new Error(`${entry} is missing: build first (npm run soak builds)`);
    }
  }

  async start(apis: number, workers: number): Promise<void> {
    // why: workers first, so the API instances see a live worker from their first request.
    for (let i = 1; i <= workers; i++) await this.spawn(`worker-${i}`);
    for (let i = 1; i <= apis; i++) await this.spawn(`api-${i}`);
  }

  /** API instances that are up now (at least the probe while the soak runs). */
  apis(): Member[] {
    return [...this.members.values()].filter((m) => m.kind === 'api' && m.ready && m.alive());
  }

  all(): Member[] {
    return [...this.members.values()];
  }

  probe(): Member {
    return this.members.get('api-1')!;
  }

  /** kill -9 of a random member other than the probe, then its restart; the member killed. */
  async killOne(random: Random): Promise<string | null> {
    const killable = [...this.members.values()].filter((m) => m.name !== 'api-1' && m.alive());
    if (killable.length === 0) return null;
    const victim = random.pick(killable);
    this.history.append({ type: 'process', event: 'kill', member: victim.name, pid: victim.pid });
    victim.child.kill('SIGKILL');
    await victim.exited;
    await this.spawn(victim.name);
    return victim.name;
  }

  /** Restarts every member that is not running (after the chaos, before quiescence). */
  async reviveAll(): Promise<void> {
    for (const m of [...this.members.values()]) {
      if (m.alive()) continue;
      this.history.append({ type: 'process', event: 'exit', member: m.name, pid: m.pid });
      await this.spawn(m.name);
    }
  }

  /** The resident set of every live member now. */
  sample(t: number): RssSample[] {
    return [...this.members.values()].flatMap((m) => {
      const rss = m.alive() ? rssOf(m.pid) : null;
      return rss === null ? [] : [{ t, member: m.name, pid: m.pid, rssMb: rss }];
    });
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.members.values()].map((m) => m.stop()));
  }

  private async spawn(name: string): Promise<Member> {
    const kind = name.startsWith('api') ? 'api' : 'worker';
    const generation = (this.generations.get(name) ?? 0) + 1;
    this.generations.set(name, generation);
    const port = kind === 'api' ? await freePort() : 0;
    const extra: Record<string, string> =
      kind === 'api'
        ? { HOST: '127.0.0.1', PORT: String(port), DB_MIGRATE: 'false', SEED_DEMO: 'false' }
        : {};
    const child = spawn(
      process.execPath,
      kind === 'api' ? [...PRODUCTION_NODE_FLAGS, SERVER_ENTRY, '--api-only'] : [WORKER_ENTRY],
      {
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...this.env, ...extra },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const member = this.track(name, kind, generation, child, port);
    this.members.set(name, member);
    this.history.append({ type: 'process', event: 'spawn', member: name, pid: member.pid });
    await this.waitUp(member);
    member.ready = true;
    return member;
  }

  private track(
    name: string,
    kind: 'api' | 'worker',
    generation: number,
    child: ChildProcess,
    port: number,
  ): Running {
    const log = createWriteStream(join(this.logDir, `${name}.${generation}.log`));
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    let running = true;
    const exited = new Promise<void>((resolve) =>
      child.once('exit', () => {
        running = false;
        log.end();
        resolve();
      }),
    );
    const stop = onCleanup(async () => {
      if (!running) return;
      child.kill('SIGKILL');
      await exited;
    });
    const base = `127.0.0.1:${port}/graphql`;
    return {
      name,
      kind,
      pid: child.pid!,
      generation,
      httpUrl: kind === 'api' ? `http://${base}` : null,
      wsUrl: kind === 'api' ? `ws://${base}` : null,
      claimName: `${kind}:${hostname()}:${child.pid}`,
      alive: () => running,
      ready: false,
      child,
      exited,
      stop,
    };
  }

  /** Until the API answers /health, or the worker's heartbeat row exists. */
  private async waitUp(m: Running): Promise<void> {
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (!m.alive()) throw new Error(`${m.name} exited during start-up (log: ${this.logDir})`);
      if (await this.isUp(m)) return;
      if (Date.now() > deadline) throw new Error(`${m.name} was not up after 90 s (log: ${this.logDir})`);
      await sleep(100);
    }
  }

  private async isUp(m: Running): Promise<boolean> {
    if (m.kind === 'api') {
      return fetch(m.httpUrl!.replace(/\/graphql$/, '/health')).then(
        (r) => r.status === 200,
        () => false,
      );
    }
    const r = await this.observer.query('SELECT 1 FROM worker_heartbeat WHERE name = $1', [m.claimName]);
    return (r.rowCount ?? 0) > 0;
  }
}
