// A PostgreSQL server and a Redis server of a test's own, for fault tests that stop, restart or
// kill them (the shared ones at 5432 / 6379 serve other test runs and are never touched).
// Both listen on free loopback ports and are removed when the test ends (`dispose`).
import { ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../bench/support/free-port';

const exec = promisify(execFile);
const PG_ROOT = '/usr/lib/postgresql';

/**
 * The newest PostgreSQL server binaries on this machine, or null (also as root without a
 * `postgres` user to run them as).
 */
export function postgresBinaries(): string | null {
  if (!existsSync(PG_ROOT)) return null;
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return null;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(PG_ROOT, v, 'bin');
    if (['initdb', 'pg_ctl', 'pg_dump', 'psql'].every((b) => existsSync(join(bin, b)))) return bin;
  }
  return null;
}

/** `redis-server` on the PATH, or null. */
export function redisServerBinary(): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  return null;
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function run(command: string, args: string[], timeout = 60_000): Promise<string> {
  const [cmd, argv] = asServerUser(command, args);
  const { stdout } = await exec(cmd, argv, { timeout, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

export interface PrivatePostgres {
  readonly port: number;
  /** A connection URL to one database of this server. */
  url(database: string): string;
  /** Stops the server (`pg_ctl stop -m fast`: sessions are terminated, as in a restart). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Copies a database of another server (pg_dump | psql) into a new database here. */
  copyFrom(sourceUrl: string, database: string): Promise<void>;
  dispose(): Promise<void>;
}

/** initdb into a temporary folder and start a server on a free port (trust auth, no fsync). */
export async function startPrivatePostgres(bin: string): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'cs-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const id = async (flag: string): Promise<number> =>
      Number((await exec('id', [flag, 'postgres'])).stdout.trim());
    chownSync(dir, await id('-u'), await id('-g'));
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  await run(join(bin, 'initdb'), [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--no-sync',
    '--locale=C',
  ]);
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
  ].join(' ');
  const pgCtl = (...args: string[]): Promise<string> =>
    run(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-o',
      options,
      '-w',
      '-t',
      '60',
      ...args,
    ]);
  const url = (database: string): string => `postgres://postgres@127.0.0.1:${port}/${database}`;
  await pgCtl('start');
  let running = true;
  // why: a test run that ends without dispose (a timeout, a crash) must not leave a server behind.
  const stopAtExit = (): void => {
    if (!running) return;
    const [cmd, argv] = asServerUser(join(bin, 'pg_ctl'), ['-D', data, 'stop', '-m', 'immediate']);
    spawnSync(cmd, argv, { timeout: 10_000 });
  };
  process.once('exit', stopAtExit);
  return {
    port,
    url,
    stop: async () => {
      await pgCtl('stop', '-m', 'fast');
      running = false;
    },
    start: async () => {
      await pgCtl('start');
      running = true;
    },
    copyFrom: async (sourceUrl, database) => {
      await run(join(bin, 'psql'), ['-q', '-d', url('postgres'), '-c', `CREATE DATABASE ${database}`]);
      const dump = join(dir, `${database}.sql`);
      await run(join(bin, 'pg_dump'), ['--no-owner', '--no-acl', '-f', dump, '-d', sourceUrl]);
      await run(join(bin, 'psql'), ['-q', '-v', 'ON_ERROR_STOP=1', '-d', url(database), '-f', dump]);
    },
    dispose: async () => {
      process.off('exit', stopAtExit);
      if (running) await pgCtl('stop', '-m', 'immediate').catch(() => undefined);
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  readonly process: ChildProcess;
  /** SIGKILLs the server and waits until it is gone. */
  kill(): Promise<void>;
}

/**
 * `redis-server` on a free port (or on `port`, to bring a killed one back), no persistence;
 * resolves once it accepts connections.
 */
export async function startPrivateRedis(binary: string, port?: number): Promise<PrivateRedis> {
  port ??= await freePort();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const deadline = Date.now() + 20_000;
  while (!/Ready to accept connections/i.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  // why: a test that fails before it kills the server must not leave it running.
  process.once('exit', () => child.kill('SIGKILL'));
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    process: child,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
