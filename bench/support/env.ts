import { existsSync, readFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import type { Client } from 'pg';

/** What every scenario gets from the runner. */
export interface BenchOptions {
  readonly quick: boolean;
  /** The PostgreSQL server (any database on it); each scenario creates its own database there. */
  readonly databaseUrl: string;
  /** `--profile`: scenarios that can (P0, P1, P5) run part of their work under the CPU profiler. */
  readonly profile: boolean;
  /**
   * `--redis`: the Redis server the scenarios that can (P4) publish their events through, as the
   * instances of a deployment do; null: the in-memory bus (the figures of record).
   */
  readonly redisUrl: string | null;
}

/** The same server URL with another database name. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** The machine and server a result was measured on (shared machines: say so in every result). */
export interface Environment {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly loadAverage: readonly number[];
  readonly memoryMb: { readonly total: number; readonly free: number };
  readonly node: string;
  readonly postgres: string;
  /** Settings that decide what a commit costs; fsync must be on. */
  readonly settings: Record<string, string>;
  /** Other databases on the same server (their WAL shares the log with ours). */
  readonly otherDatabases: number;
}

const SETTINGS = [
  'fsync',
  'synchronous_commit',
  'full_page_writes',
  'wal_compression',
  'wal_level',
  'checkpoint_timeout',
  'autovacuum',
  'shared_buffers',
];

export async function describeEnvironment(client: Client): Promise<Environment> {
  const version = await client.query<{ server_version: string }>('SHOW server_version');
  const settings = await client.query<{ name: string; setting: string; unit: string | null }>(
    'SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)',
    [SETTINGS],
  );
  const dbs = await client.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_database WHERE datname <> current_database() AND datname NOT IN ('template0', 'template1')",
  );
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    memoryMb: { total: Math.round(totalmem() / 2 ** 20), free: Math.round(freemem() / 2 ** 20) },
    node: process.version,
    postgres: version.rows[0]?.server_version ?? 'unknown',
    settings: Object.fromEntries(
      settings.rows.map((s) => [s.name, s.unit ? `${s.setting} (${s.unit})` : s.setting]),
    ),
    otherDatabases: Number(dbs.rows[0]?.n ?? 0),
  };
}

/**
 * The version of an installed package (for peer baselines: printed beside their figures),
 * read next to its entry point, since a package's `exports` may hide its package.json.
 */
export function installedVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  while (dirname(dir) !== dir) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return pkg.version;
    }
    dir = dirname(dir);
  }
  return 'unknown';
}
