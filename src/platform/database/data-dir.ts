import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Thrown when the data folder holds entries whose permissions cannot be made private. */
export class DataDirPermissionError extends Error {
  constructor(
    readonly dataDir: string,
    readonly paths: readonly string[],
  ) {
    super(
      `The data folder ${dataDir} must be private to the user running Countersign (folders 0700, ` +
        `files 0600), but these could not be made so: ${paths.slice(0, 5).join(', ')}` +
        `${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}. ` +
        'Give them to this user (chown -R) or fix their modes, then start again.',
    );
    this.name = 'DataDirPermissionError';
  }
}

/** Permission bits for group and others: none may be set inside the data folder. */
const SHARED_BITS = 0o077;

/**
 * Makes the data folder private: creates it 0700, tightens every folder to 0700 and every file
 * to 0600 where group or others had any access, and sets the process umask to 0077 so what is
 * written later (the embedded database creates files with mode 0666) is born private.
 * why tighten rather than refuse: the files are this user's own, a looser mode only ever came
 * from the umask of an earlier version, and refusing would stop every upgraded install for a
 * fix the server can make itself. Entries it cannot change (owned by someone else) make it
 * refuse with `DataDirPermissionError`. Symbolic links are left alone (their target is not
 * ours to change) and not followed.
 */
export function secureDataDir(dataDir: string): void {
  process.umask(SHARED_BITS);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const failed: string[] = [];
  tighten(dataDir, failed);
  if (failed.length > 0) throw new DataDirPermissionError(dataDir, failed);
}

/** Entries under `dataDir` (itself included) that group or others may access. */
export function looseEntries(dataDir: string): string[] {
  const loose: string[] = [];
  walk(dataDir, (path, mode) => {
    if ((mode & SHARED_BITS) !== 0) loose.push(path);
  });
  return loose;
}

function tighten(dataDir: string, failed: string[]): void {
  walk(dataDir, (path, mode, isDir) => {
    if ((mode & SHARED_BITS) === 0) return;
    try {
      chmodSync(path, isDir ? 0o700 : 0o600);
    } catch {
      failed.push(path);
    }
  });
}

function walk(path: string, visit: (path: string, mode: number, isDir: boolean) => void): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  const isDir = stat.isDirectory();
  // why: a folder is tightened before it is listed, so its entries are never exposed meanwhile.
  visit(path, stat.mode & 0o777, isDir);
  if (!isDir) return;
  for (const name of readdirSync(path)) walk(join(path, name), visit);
}
