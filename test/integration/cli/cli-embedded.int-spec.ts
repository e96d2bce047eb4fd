import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { hashToken } from '../../../src/modules/auth/core/token';
import { lockDataDir } from '../../../src/platform/database/pglite';
import { count, snapshot } from '../house/house-support';
import { authenticate, cli, cliFolders, CliRun, groupsOf, inDataDir, ROOT, TOKEN_LINE } from './cli-support';

describe('the CLI (compiled, in a child process)', () => {
  const { dataDir, embedded } = cliFolders();

  describe('on the embedded database (a fresh DATA_DIR)', () => {
    let token: string;

    it('seeds the demo data, running the migrations first, and writes the demo tokens', async () => {
      const run = await cli(['seed', 'demo'], embedded);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/Applied migrations: \w+/);
      expect(run.stdout).toMatch(/Loaded the demo data/);
      const file = join(dataDir, 'demo-tokens.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const tokens = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      expect(Object.keys(tokens).sort()).toEqual(['admin', 'alice', 'bob', 'carol', 'dave', 'erin']);
      expect(run.stdout).toContain(tokens.alice);
      const alice = await inDataDir(dataDir, (ds) => authenticate(ds, tokens.alice!));
      expect(alice?.username).toBe('alice');
      // made as `token create` makes a token: one audit record each, outside the API
      const audited = await inDataDir(dataDir, (ds) =>
        ds.query(`SELECT via, details->>'label' AS label FROM audit_event WHERE action = 'TOKEN_CREATED'`),
      );
      expect(audited).toEqual(Array(6).fill({ via: 'cli', label: 'demo' }));
      expect(existsSync(join(dataDir, 'countersign.lock'))).toBe(false);
    }, 60_000);

    it('seeds again without changing anything', async () => {
      const tokensBefore = readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8');
      const before = await inDataDir(dataDir, snapshot);
      const run = await cli(['seed', 'demo'], embedded);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/already present.*nothing changed/);
      expect(run.stdout).not.toMatch(/Applied migrations/);
      expect(await inDataDir(dataDir, snapshot)).toEqual(before);
      expect(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')).toBe(tokensBefore);
    }, 60_000);

    it('creates a user in the groups named', async () => {
      const run = await cli(
        [
          'user',
          'create',
          '--username',
          'zoe',
          '--group',
          'editors',
          '--group',
          'approvers',
          '--display-name',
          'Zoe Z',
        ],
        embedded,
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/Created user "zoe" \(id \d+, admin: no, groups: /);
      const [user, groups] = await inDataDir(dataDir, async (ds) => [
        await ds.query<unknown[]>(
          "SELECT display_name, is_admin, locale FROM app_user WHERE username = 'zoe'",
        ),
        await groupsOf(ds, 'zoe'),
      ]);
      expect(user).toEqual([{ display_name: 'Zoe Z', is_admin: false, locale: 'en' }]);
      expect(groups).toEqual(['approvers', 'editors']);
    }, 60_000);

    it('creates an admin without groups', async () => {
      const run = await cli(['user', 'create', '--username', 'root2', '--admin'], embedded);
      expect(run.code).toBe(0);
      const rows = await inDataDir(dataDir, (ds) =>
        ds.query("SELECT is_admin FROM app_user WHERE username = 'root2'"),
      );
      expect(rows).toEqual([{ is_admin: true }]);
    }, 60_000);

    it('refuses an existing username or an unknown group, exiting 1 and creating nothing', async () => {
      const before = await inDataDir(dataDir, (ds) => count(ds, 'app_user'));
      const dup = await cli(['user', 'create', '--username', 'zoe'], embedded);
      expect(dup.code).toBe(1);
      expect(dup.stderr).toMatch(/A user "zoe" already exists/);
      const unknown = await cli(
        ['user', 'create', '--username', 'yan', '--group', 'editors', '--group', 'wizards'],
        embedded,
      );
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(
        /Unknown group\(s\): wizards \(existing groups: approvers, editors, interns, restricted\)/,
      );
      expect(await inDataDir(dataDir, (ds) => count(ds, 'app_user'))).toBe(before);
    }, 60_000);

    it('maps a groups-claim value to a group and lists it; an unknown group or a repeat exits 1 and writes nothing', async () => {
      const add = await cli(
        ['group-map', 'add', '--value', 'Countersign.Admins', '--group', 'editors', '--admin'],
        embedded,
      );
      expect(add.stderr).toBe('');
      expect(add.code).toBe(0);
      const unknown = await cli(['group-map', 'add', '--value', 'x', '--group', 'wizards'], embedded);
      expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringMatching(/no group named "wizards"/)]);
      const repeat = await cli(
        ['group-map', 'add', '--value', 'Countersign.Admins', '--group', 'editors'],
        embedded,
      );
      expect([repeat.code, repeat.stderr]).toEqual([1, expect.stringMatching(/already mapped/)]);
      expect(await inDataDir(dataDir, (ds) => count(ds, 'identity_group_mapping'))).toBe(1);
      const list = await cli(['group-map', 'list'], embedded);
      expect(list.lines.slice(-1)[0]).toMatch(/^\d+ {2}"Countersign.Admins" -> editors {2}admin: yes$/);
    }, 60_000);

    it('creates a token that is the last line alone, stored only as its hash, and authenticates', async () => {
      const run = await cli(['token', 'create', '--user', 'zoe', '--label', 'ci deploy'], embedded);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      token = run.lines[run.lines.length - 1]!;
      expect(token).toMatch(TOKEN_LINE);
      expect(run.lines.slice(0, -1).join('\n')).not.toContain(token);
      // why: one open of the data directory for all three reads (each open boots PGlite).
      const [rows, viewer, stored] = await inDataDir(dataDir, async (ds) => [
        await ds.query<unknown[]>(
          `SELECT t.label, u.username FROM api_token t JOIN app_user u ON u.id = t.user_id WHERE t.token_hash = $1`,
          [hashToken(token)],
        ),
        await authenticate(ds, token),
        await ds.query<unknown[]>('SELECT count(*)::int AS n FROM api_token WHERE token_hash = $1', [token]),
      ]);
      expect(rows).toEqual([{ label: 'ci deploy', username: 'zoe' }]);
      expect(viewer).toMatchObject({ username: 'zoe', displayName: 'Zoe Z', isAdmin: false });
      expect([...viewer!.grants].sort()).toEqual(['AGENT_APPROVE', 'CHAT']);
      expect(stored).toEqual([{ n: 0 }]);
    }, 60_000);

    it('lists every user once, with its groups and active tokens', async () => {
      const run = await cli(['user', 'list'], embedded);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const users = await inDataDir(dataDir, (ds) => count(ds, 'app_user'));
      expect(run.lines[0]).toBe(`Users (${users}):`);
      expect(run.lines).toHaveLength(users + 1);
      expect(run.lines.filter((l) => l.includes('  zoe  '))).toEqual([
        expect.stringMatching(/"Zoe Z" {2}en {2}admin: no {2}groups: approvers,editors {2}active tokens: 1$/),
      ]);
      expect(run.stdout).not.toMatch(/cs_/);
    }, 60_000);

    it("lists a user's tokens and revokes one, then all, so they no longer authenticate", async () => {
      const second = await cli(['token', 'create', '--user', 'zoe', '--label', 'spare'], embedded);
      const spare = second.lines[second.lines.length - 1]!;
      const list = await cli(['token', 'list', '--user', 'zoe'], embedded);
      expect(list.code).toBe(0);
      expect(list.lines[0]).toBe('Tokens of "zoe" (2):');
      expect(list.lines).toHaveLength(3);
      expect(list.stdout).not.toContain(token);
      const spareId = list.lines.find((l) => l.includes('"spare"'))!.split('  ')[0]!;
      const revoked = (ds: DataSource) =>
        ds.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM api_token t JOIN app_user u ON u.id = t.user_id
           WHERE u.username = 'zoe' AND t.revoked_at IS NOT NULL`,
        );

      // why: one open of the data directory per check (each open boots PGlite).
      const afterRevoke = async (ds: DataSource) =>
        [await revoked(ds), await authenticate(ds, spare), await authenticate(ds, token)] as const;

      const one = await cli(['token', 'revoke', '--user', 'zoe', '--id', spareId], embedded);
      expect(one.code).toBe(0);
      const [revokedOne, spareAfterOne, tokenAfterOne] = await inDataDir(dataDir, afterRevoke);
      expect(revokedOne).toEqual([{ n: 1 }]);
      expect(spareAfterOne).toBeNull();
      expect(tokenAfterOne).not.toBeNull();

      const all = await cli(['token', 'revoke', '--user', 'zoe', '--all'], embedded);
      expect(all.code).toBe(0);
      const [revokedAll, , tokenAfterAll] = await inDataDir(dataDir, afterRevoke);
      expect(revokedAll).toEqual([{ n: 2 }]);
      expect(tokenAfterAll).toBeNull();
      const users = await cli(['user', 'list'], embedded);
      expect(users.stdout).toMatch(/ {2}zoe {2}.*active tokens: 0$/m);
    }, 120_000);

    it('refuses a token for an unknown user, exiting 1 and creating nothing', async () => {
      const before = await inDataDir(dataDir, (ds) => count(ds, 'api_token'));
      const run = await cli(['token', 'create', '--user', 'nobody'], embedded);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/No user "nobody"/);
      expect(run.stdout).toBe('');
      expect(await inDataDir(dataDir, (ds) => count(ds, 'api_token'))).toBe(before);
    }, 60_000);
  });

  describe('while another process holds DATA_DIR', () => {
    let holder: ChildProcess | null = null;
    afterEach(() => {
      holder?.kill('SIGKILL');
      holder = null;
    });

    it('says the database is in use and exits 1 at once, and works again once it is free', async () => {
      const release = lockDataDir(dataDir);
      let run: CliRun;
      try {
        run = await cli(['user', 'create', '--username', 'busy1'], embedded);
      } finally {
        release();
      }
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`is in use by another process \\(pid ${process.pid}\\)`));
      expect(run.stderr).toMatch(/stop the server first/);
      expect(run.ms).toBeLessThan(15_000);
      const again = await cli(['user', 'create', '--username', 'busy1'], embedded);
      expect(again.code).toBe(0);
    }, 60_000);

    it('refuses while a process has the database open, and takes over the lock once that process died', async () => {
      // A stand-in for the server: opens the embedded database as main.ts does and keeps it.
      const script = `require(${JSON.stringify(join(ROOT, 'dist/src/platform/database/pglite.js'))})
        .openEmbeddedDatabase(process.env.DATA_DIR)
        .then((db) => db.pglite.query('SELECT 1'))
        .then(() => { console.log('ready'); setInterval(() => {}, 1000); });`;
      const proc = spawn(process.execPath, ['-e', script], {
        env: { PATH: process.env.PATH ?? '', ...embedded },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      holder = proc;
      await new Promise<void>((ready, fail) => {
        proc.stdout.on('data', (b: Buffer) => b.toString().includes('ready') && ready());
        proc.on('exit', (code) => fail(new Error(`the holder exited early (${code})`)));
      });
      const run = await cli(['token', 'create', '--user', 'zoe'], embedded);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`in use by another process \\(pid ${proc.pid}\\)`));
      expect(run.stdout).not.toMatch(/cs_/);
      expect(run.ms).toBeLessThan(15_000);

      proc.kill('SIGKILL'); // a crash: the lock file stays behind, naming a dead process
      await new Promise((gone) => proc.once('exit', gone));
      holder = null;
      expect(existsSync(join(dataDir, 'countersign.lock'))).toBe(true);
      const after = await cli(['token', 'create', '--user', 'zoe'], embedded);
      expect(after.code).toBe(0);
      expect(after.lines[after.lines.length - 1]).toMatch(TOKEN_LINE);
    }, 90_000);
  });
});
