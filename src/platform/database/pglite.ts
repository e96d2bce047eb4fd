import type { PGlite } from '@electric-sql/pglite';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { secureDataDir } from './data-dir';

/**
 * PGlite itself (a megabyte of JavaScript, then its WebAssembly), loaded on the first embedded
 * database: a server on PostgreSQL never opens one and so never carries it (bench M1).
 */
function pgliteClass(): typeof PGlite {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('@electric-sql/pglite') as typeof import('@electric-sql/pglite')).PGlite;
}

/** Thrown when another live process holds the embedded database directory. */
export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by another process (pid ${holderPid}). ` +
        'PGlite is a single session: stop the server first, or run the command through the ' +
        "server's API, or point DATABASE_URL at a PostgreSQL server.",
    );
    this.name = 'DataDirBusyError';
  }
}

const LOCK_FILE = 'countersign.lock';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the data directory's lock for this process. A lock left by a dead process is taken
 * over; one held by a live process is refused with `DataDirBusyError`.
 * Returns the function that releases it.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lockPath = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockPath, JSON.stringify({ pid: process.pid, host: hostname() }), {
        flag: 'wx',
        mode: 0o600,
      });
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        process.removeListener('exit', release);
        try {
          rmSync(lockPath, { force: true });
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return release;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder: number;
      try {
        holder = Number((JSON.parse(readFileSync(lockPath, 'utf8')) as { pid?: number }).pid ?? 0);
      } catch {
        holder = 0;
      }
      if (holder > 0 && holder !== process.pid && processAlive(holder)) {
        throw new DataDirBusyError(dataDir, holder);
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}

export interface EmbeddedDatabase {
  readonly pglite: PGlite;
  close(): Promise<void>;
}

/**
 * Opens (creating on first use) the embedded PostgreSQL under `dataDir/pgdata`, locked, after
 * making the data folder private (`secureDataDir`: 0700 folders, 0600 files, umask 0077).
 */
export async function openEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  secureDataDir(dataDir);
  const release = lockDataDir(dataDir);
  try {
    const pgdata = join(dataDir, 'pgdata');
    if (!existsSync(pgdata)) mkdirSync(pgdata, { recursive: true, mode: 0o700 });
    const pglite = await pgliteClass().create({ dataDir: pgdata });
    return {
      pglite,
      close: async () => {
        try {
          if (!pglite.closed) await pglite.close();
        } finally {
          release();
        }
      },
    };
  } catch (e) {
    release();
    throw e;
  }
}

/** An in-memory PGlite (tests), optionally loaded from a dumped data directory. */
export async function openMemoryDatabase(snapshot?: Blob | File): Promise<EmbeddedDatabase> {
  const pglite = await pgliteClass().create(snapshot ? { loadDataDir: snapshot } : {});
  return {
    pglite,
    close: async () => {
      if (!pglite.closed) await pglite.close();
    },
  };
}
