// The server's start as users run it (`node dist/src/main.js`, embedded database in a temporary
// DATA_DIR): the data folder is made private, demo tokens are printed only on the start that
// created them, and a weak state encryption key stops the start with a clear message.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { looseEntries } from '../../src/platform/database/data-dir';
import { build, exitOf, SERVER, start, startServer, type Spawned } from '../support/processes';

const TOKEN = /cs_[A-Za-z0-9_-]{43}/;

describe('starting the server on the embedded database', () => {
  const temp = mkdtempSync(join(tmpdir(), 'cs-startup-'));
  let umask: number;
  beforeAll(() => {
    // why: the umask users commonly have, under which files were created 0644/0666 before.
    umask = process.umask(0o022);
    build();
  }, 240_000);
  afterAll(() => {
    process.umask(umask);
    rmSync(temp, { recursive: true, force: true });
  });

  const stop = async (p: Spawned): Promise<void> => {
    p.child.kill('SIGTERM');
    expect((await exitOf(p, 30_000)).code).toBe(0);
  };
  const modeOf = (path: string): number => statSync(path).mode & 0o777;

  it('makes DATA_DIR private and prints the demo tokens only on the start that created them', async () => {
    const dataDir = join(temp, 'data');
    mkdirSync(join(dataDir, 'old'), { recursive: true });
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'old'), 0o777);
    writeFileSync(join(dataDir, 'old', 'notes.txt'), 'left by an earlier version');
    chmodSync(join(dataDir, 'old', 'notes.txt'), 0o666);
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' };

    const first = await startServer(env);
    expect(first.output()).toMatch(TOKEN);
    expect(first.output()).toContain(`kept in ${join(dataDir, 'demo-tokens.json')}`);
    expect(readdirSync(join(dataDir, 'pgdata')).length).toBeGreaterThan(0);
    // every entry, the embedded database's own files included, is private while it runs
    expect(looseEntries(dataDir)).toEqual([]);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, 'old', 'notes.txt'))).toBe(0o600);
    expect(modeOf(join(dataDir, 'demo-tokens.json'))).toBe(0o600);
    await stop(first);

    // an install whose files are loose again (copied, restored from a backup) is tightened
    chmodSync(join(dataDir, 'pgdata'), 0o755);
    chmodSync(join(dataDir, 'demo-tokens.json'), 0o644);
    const second = await startServer(env);
    expect(second.output()).not.toMatch(TOKEN);
    expect(second.output()).toContain(`Demo tokens: in ${join(dataDir, 'demo-tokens.json')}`);
    expect(looseEntries(dataDir)).toEqual([]);
    await stop(second);
  }, 180_000);

  it.each([
    ['all zeros', Buffer.alloc(32, 0), /only 1 distinct byte values/],
    ['a repeated block', Buffer.from('0123456789abcdef0123456789abcdef'), /repeats a block of 16 bytes/],
    ['a counting sequence', Buffer.from(Array.from({ length: 32 }, (_, i) => i)), /counting sequence/],
  ])('refuses STATE_ENCRYPTION_KEY of %s with exit code 1 and a clear message', async (_what, key, why) => {
    const dataDir = join(temp, `weak-${key.toString('hex').slice(0, 8)}`);
    const run = start(SERVER, [], { DATA_DIR: dataDir, STATE_ENCRYPTION_KEY: key.toString('base64') });
    expect((await exitOf(run, 30_000)).code).toBe(1);
    expect(run.output()).toMatch(/STATE_ENCRYPTION_KEY is not a usable key/);
    expect(run.output()).toMatch(why);
    expect(run.output()).toMatch(/openssl rand -base64 32/);
    expect(run.output()).not.toMatch(/Countersign is running/);
  });

  it('refuses a weak key file in DATA_DIR, naming the file', async () => {
    const dataDir = join(temp, 'weak-file');
    mkdirSync(dataDir, { recursive: true });
    const keyFile = join(dataDir, 'state-encryption.key');
    writeFileSync(keyFile, `${Buffer.alloc(32, 0).toString('base64')}\n`);
    const run = start(SERVER, [], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect((await exitOf(run, 60_000)).code).toBe(1);
    expect(run.output()).toContain(`${keyFile} is not a usable key`);
    expect(run.output()).not.toMatch(/Countersign is running/);
  }, 90_000);
});
