import { statSync, existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, CLI, cli, cliFolders, ROOT } from './cli-support';

describe('the CLI (compiled, in a child process)', () => {
  const { dataDir, embedded } = cliFolders();

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
});
