import { loadConfig } from '../../../src/config/app-config';
import { EventBus } from '../../../src/platform/pubsub/event-bus';
// The CLI as users run it: the compiled dist/src/cli.js in a child process, against a
// temporary embedded DATA_DIR (and, with DATABASE_URL, against PostgreSQL test databases).
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { AuthUser } from '../../../src/platform/auth/auth-user';
import { hashToken } from '../../../src/modules/auth/core/token';
import { TokenAuthenticator } from '../../../src/modules/auth/application/token-authenticator';
import { AuthRepository } from '../../../src/modules/auth/persistence/auth.repository';
import { dataSourceOptions, DatabaseTarget } from '../../../src/platform/database/data-source-options';
import { lockDataDir, openEmbeddedDatabase } from '../../../src/platform/database/pglite';
import { createTestDatabase, itOnPostgres, TestDatabase } from '../../support/test-database';
import { count, createFreshDatabase, FreshDatabase, publicTables, snapshot } from '../house/house-support';

const ROOT = resolve(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli.js');
const BIN = join(ROOT, 'bin', 'countersign.js');
const TOKEN_LINE = /^cs_[A-Za-z0-9_-]{43}$/;

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly lines: string[];
  readonly ms: number;
}

/** Runs the compiled CLI with only the environment given (plus PATH): no DATABASE_URL leaks in. */
function cli(args: string[], env: Record<string, string>, script = CLI): Promise<CliRun> {
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
async function inDataDir<T>(dataDir: string, fn: (ds: DataSource) => Promise<T>): Promise<T> {
  const db = await openEmbeddedDatabase(dataDir);
  try {
    return await onTarget({ kind: 'pglite', pglite: db.pglite }, fn);
  } finally {
    await db.close();
  }
}

async function onTarget<T>(target: DatabaseTarget, fn: (ds: DataSource) => Promise<T>): Promise<T> {
  const ds = new DataSource(dataSourceOptions(target, 1));
  await ds.initialize();
  try {
    return await fn(ds);
  } finally {
    await ds.destroy();
  }
}

/** Authenticates a token the way the API does (hash lookup, revocation, expiry). */
function authenticate(ds: DataSource, token: string): Promise<AuthUser | null> {
  return new TokenAuthenticator(
    new AuthRepository(ds),
    new EventBus(loadConfig({})),
    loadConfig({}),
  ).authenticate(`Bearer ${token}`);
}

async function groupsOf(ds: DataSource, username: string): Promise<string[]> {
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

describe('the CLI (compiled, in a child process)', () => {
  const temp = mkdtempSync(join(tmpdir(), 'cs-cli-'));
  const dataDir = join(temp, 'data');
  const embedded = { DATA_DIR: dataDir };

  beforeAll(() => buildCli(), 180_000);
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  describe('bad command lines', () => {
    it.each([
      [['user', 'create'], /user create: missing --username/],
      [['user', 'create', '--username', 'no spaces allowed'], /is not a valid username/],
      [['token', 'create', '--user', 'alice', '--lable', 'typo'], /Unknown option '--lable'/],
      [['seed', 'everything'], /seed: unknown action "everything"/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [[], /missing command/],
    ])('%j exits 2 with a message and the usage, touching no database', async (args, message) => {
      const run = await cli(args, embedded);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/Usage: npm run cli -- /);
      expect(run.stdout).toBe('');
      expect(existsSync(dataDir)).toBe(false);
    });

    it('refuses a bad environment variable by name, exiting 1', async () => {
      const run = await cli(['seed', 'demo'], { ...embedded, DATABASE_URL: 'mysql://db/x' });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/DATABASE_URL: DATABASE_URL must be a postgres/);
      expect(existsSync(dataDir)).toBe(false);
    });

    it('prints the help with --help and exits 0', async () => {
      const run = await cli(['--help'], embedded);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/user create[\s\S]*token create[\s\S]*seed demo/);
      const topic = await cli(['token', 'create', '--help'], embedded);
      expect(topic.code).toBe(0);
      expect(topic.stdout).toMatch(/^Usage: npm run cli -- token create --user U/);
    });
  });

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

  describe('the countersign bin (npx countersign, npm run cli)', () => {
    const source = join(ROOT, 'src', 'cli.ts');

    it('runs the build as it is when no source changed, and recompiles once after one did', async () => {
      await cli(['--help'], embedded, BIN); // compiles at most once after buildCli
      const built = statSync(CLI).mtimeMs;
      const fresh = await cli(['user', 'list', '--help'], embedded, BIN);
      expect(fresh.code).toBe(0);
      expect(fresh.stderr).toBe('');
      expect(fresh.stdout).toMatch(/^Usage: npm run cli -- user list/);
      expect(statSync(CLI).mtimeMs).toBe(built);

      const now = new Date();
      utimesSync(source, now, now); // an edit, as far as mtimes go
      const changed = await cli(['--help'], embedded, BIN);
      expect(changed.code).toBe(0);
      expect(changed.stderr).toMatch(/src\/cli\.ts changed; compiling the server/);
      const again = await cli(['--help'], embedded, BIN);
      expect(again.stderr).toBe('');
      expect(again.stdout).toBe(changed.stdout);
    }, 180_000);
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

  describe('with DATABASE_URL (PostgreSQL)', () => {
    let db: TestDatabase | null = null;
    let fresh: FreshDatabase | null = null;
    const untouchedDir = join(temp, 'never-created');
    afterAll(async () => {
      await db?.dispose();
      await fresh?.dispose();
    });

    itOnPostgres(
      'creates a user and a token on the PostgreSQL database, leaving DATA_DIR alone',
      async () => {
        db = await createTestDatabase();
        const env = { DATABASE_URL: db.url!, DATA_DIR: untouchedDir };
        const user = await cli(
          ['user', 'create', '--username', 'pgzoe', '--group', 'interns', '--locale', 'de'],
          env,
        );
        expect(user.stderr).toBe('');
        expect(user.code).toBe(0);
        const run = await cli(['token', 'create', '--user', 'pgzoe'], env);
        expect(run.code).toBe(0);
        const token = run.lines[run.lines.length - 1]!;
        expect(token).toMatch(TOKEN_LINE);
        const [groups, viewer] = await onTarget(db.target, async (ds) => [
          await groupsOf(ds, 'pgzoe'),
          await authenticate(ds, token),
        ]);
        expect(groups).toEqual(['interns']);
        expect(viewer).toMatchObject({ username: 'pgzoe', locale: 'de' });
        const seed = await cli(['seed', 'demo'], env);
        expect(seed.code).toBe(0);
        expect(seed.stdout).toMatch(/already present/);
        expect(existsSync(untouchedDir)).toBe(false);
      },
      60_000,
    );

    itOnPostgres(
      'refuses an unmigrated database without touching it, and migrates it with DB_MIGRATE=true',
      async () => {
        fresh = await createFreshDatabase();
        const env = { DATABASE_URL: fresh.url!, DATA_DIR: untouchedDir };
        const refused = await cli(['user', 'create', '--username', 'early'], env);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/schema is not up to date: \d+ migration\(s\) pending/);
        expect(refused.stderr).toMatch(/npm run migration:run/);
        expect(await onTarget(fresh.target, publicTables)).toEqual([]);

        const migrated = await cli(['user', 'create', '--username', 'early'], { ...env, DB_MIGRATE: 'true' });
        expect(migrated.code).toBe(0);
        expect(migrated.stdout).toMatch(/Applied migrations: /);
        expect(await onTarget(fresh.target, (ds) => count(ds, 'app_user'))).toBe(1);
      },
      60_000,
    );

    itOnPostgres(
      'says plainly when PostgreSQL cannot be reached, without the password',
      async () => {
        const run = await cli(['seed', 'demo'], {
          DATABASE_URL: 'postgres://postgres:hunter2@127.0.0.1:1/nowhere',
          DATA_DIR: untouchedDir,
        });
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/Cannot connect to postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/nowhere/);
        expect(run.stderr).not.toContain('hunter2');
      },
      60_000,
    );
  });
});
