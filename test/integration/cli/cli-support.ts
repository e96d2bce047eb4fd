// Helpers of the CLI specs (cli-*.int-spec.ts): the CLI as users run it, the compiled
// dist/src/cli.js in a child process, against a temporary embedded DATA_DIR (and, with
// DATABASE_URL, against PostgreSQL test databases).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../../src/config/app-config';
import { AuthUser } from '../../../src/platform/auth/auth-user';
import { TokenAuthenticator } from '../../../src/modules/auth/application/token-authenticator';
import { AuthRepository } from '../../../src/modules/auth/persistence/auth.repository';
import { DatabaseTarget } from '../../../src/platform/database/data-source-options';
import { openEmbeddedDatabase } from '../../../src/platform/database/pglite';
import { EventBus } from '../../../src/platform/pubsub/event-bus';
import { connect } from '../house/house-support';

export const ROOT = resolve(__dirname, '..', '..', '..');
export const CLI = join(ROOT, 'dist', 'src', 'cli.js');
export const BIN = join(ROOT, 'bin', 'countersign.js');
export const TOKEN_LINE = /^cs_[A-Za-z0-9_-]{43}$/;

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly lines: string[];
  readonly ms: number;
}

/** Runs the compiled CLI with only the environment given (plus PATH): no DATABASE_URL leaks in. */
export function cli(args: string[], env: Record<string, string>, script = CLI): Promise<CliRun> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 45_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', fail);
    child.on('close', (code) =>
      done({ code, stdout, stderr, lines: stdout.trimEnd().split('\n'), ms: Date.now() - started }),
    );
  });
}

/** Works on an embedded data directory from the test process (taking its lock meanwhile). */
export async function inDataDir<T>(dataDir: string, fn: (ds: DataSource) => Promise<T>): Promise<T> {
  const db = await openEmbeddedDatabase(dataDir);
  try {
    return await onTarget({ kind: 'pglite', pglite: db.pglite }, fn);
  } finally {
    await db.close();
  }
}

/** Works on a database from the test process, on a data source of its own. */
export async function onTarget<T>(target: DatabaseTarget, fn: (ds: DataSource) => Promise<T>): Promise<T> {
  const ds = await connect(target);
  try {
    return await fn(ds);
  } finally {
    await ds.destroy();
  }
}

/** Authenticates a token the way the API does (hash lookup, revocation, expiry). */
export function authenticate(ds: DataSource, token: string): Promise<AuthUser | null> {
  return new TokenAuthenticator(
    new AuthRepository(ds),
    new EventBus(loadConfig({})),
    loadConfig({}),
  ).authenticate(`Bearer ${token}`);
}

export async function groupsOf(ds: DataSource, username: string): Promise<string[]> {
  const rows: { name: string }[] = await ds.query(
    `SELECT g.name FROM app_user u JOIN group_member m ON m.user_id = u.id
     JOIN access_group g ON g.id = m.group_id WHERE u.username = $1 ORDER BY g.name`,
    [username],
  );
  return rows.map((r) => r.name);
}

/** Errors tsc reports in the CLI's own files (others' work in progress does not stop these tests). */
function buildCli(): void {
  const tsc = spawnSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  const ownErrors = tsc.stdout.split('\n').filter((l) => /^src\/cli(\.ts|\/)/.test(l));
  if (ownErrors.length > 0 || !existsSync(CLI)) {
    throw new Error(`building the CLI failed:\n${tsc.stdout}${tsc.stderr}`);
  }
  if (tsc.status !== 0) console.warn(`tsc reported errors outside the CLI:\n${tsc.stdout}`);
}

/**
 * The folders of one spec file: a temporary one, removed after the file, with DATA_DIR in it.
 * Builds the CLI before the file's tests.
 */
export function cliFolders(): { temp: string; dataDir: string; embedded: { DATA_DIR: string } } {
  const temp = mkdtempSync(join(tmpdir(), 'cs-cli-'));
  const dataDir = join(temp, 'data');
  beforeAll(() => buildCli(), 180_000);
  afterAll(() => rmSync(temp, { recursive: true, force: true }));
  return { temp, dataDir, embedded: { DATA_DIR: dataDir } };
}
