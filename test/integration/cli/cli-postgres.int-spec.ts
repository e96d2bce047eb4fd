import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, itOnPostgres, TestDatabase } from '../../support/test-database';
import { count, createFreshDatabase, FreshDatabase, publicTables } from '../house/house-support';
import { authenticate, cli, cliFolders, groupsOf, onTarget, TOKEN_LINE } from './cli-support';

describe('the CLI (compiled, in a child process)', () => {
  const { temp } = cliFolders();

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
