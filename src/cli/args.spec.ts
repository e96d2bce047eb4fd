import { generalHelp, helpFor, parseCli, UsageError } from './args';

function usageError(argv: string[]): UsageError {
  try {
    parseCli(argv);
  } catch (e) {
    if (e instanceof UsageError) return e;
    throw e;
  }
  throw new Error(`parseCli(${JSON.stringify(argv)}) did not refuse`);
}

describe('parseCli', () => {
  it('parses user list, which takes no option', () => {
    expect(parseCli(['user', 'list'])).toEqual({ kind: 'user-list' });
    expect(usageError(['user', 'list', '--all']).message).toMatch(/user list: Unknown option '--all'/);
  });

  describe('user create', () => {
    it('parses a plain user with defaults', () => {
      expect(parseCli(['user', 'create', '--username', 'zoe'])).toEqual({
        kind: 'user-create',
        username: 'zoe',
        displayName: 'zoe',
        locale: 'en',
        admin: false,
        groups: [],
      });
    });

    it('parses an admin in several groups (repeated --group, duplicates once) with name and locale', () => {
      expect(
        parseCli([
          'user',
          'create',
          '--username=zoe.k',
          '--admin',
          '--group',
          'editors',
          '--group',
          'approvers',
          '--group',
          'editors',
          '--display-name',
          'Zoe K.',
          '--locale',
          'de-CH',
        ]),
      ).toEqual({
        kind: 'user-create',
        username: 'zoe.k',
        displayName: 'Zoe K.',
        locale: 'de-CH',
        admin: true,
        groups: ['editors', 'approvers'],
      });
    });

    it.each([
      [['user', 'create'], /user create: missing --username/],
      [['user', 'create', '--username'], /user create: .*--username.*argument missing/],
      [['user', 'create', '--username', ''], /--username must not be empty/],
      [['user', 'create', '--username', 'two words'], /"two words" is not a valid username/],
      [['user', 'create', '--username', '-x'], /--username.*ambiguous/],
      [['user', 'create', '--username', 'a'.repeat(65)], /--username is too long \(at most 64/],
      [['user', 'create', '--username', 'zoe', '--group', ' '], /--group .* is not a group name/],
      [['user', 'create', '--username', 'zoe', '--locale', 'english'], /--locale "english" is not a locale/],
      [['user', 'create', '--username', 'zoe', '--admin=yes'], /'--admin' does not take an argument/],
      [
        ['user', 'create', '--username', 'zoe', '--password', 'x'],
        /user create: Unknown option '--password'/,
      ],
      [['user', 'create', '--username', 'a', '--username', 'b'], /--username given more than once/],
      [['user', 'create', 'zoe'], /user create: Unexpected argument 'zoe'/],
    ])('refuses %j', (argv, message) => {
      const e = usageError(argv);
      expect(e.message).toMatch(message);
      expect(e.usage).toContain('user create --username U');
    });
  });

  describe('token create', () => {
    it('parses the user and defaults the label to "cli"', () => {
      expect(parseCli(['token', 'create', '--user', 'alice'])).toEqual({
        kind: 'token-create',
        username: 'alice',
        label: 'cli',
      });
      expect(parseCli(['token', 'create', '--label', 'CI deploy', '--user', 'alice'])).toEqual({
        kind: 'token-create',
        username: 'alice',
        label: 'CI deploy',
      });
    });

    it.each([
      [['token', 'create'], /token create: missing --user/],
      [['token', 'create', '--username', 'alice'], /Unknown option '--username'/],
      [['token', 'create', '--user', 'alice', '--label', 'x'.repeat(201)], /--label is too long/],
      [['token', 'create', '--user', 'alice', '--label', '  '], /--label must not be empty/],
    ])('refuses %j', (argv, message) => {
      const e = usageError(argv);
      expect(e.message).toMatch(message);
      expect(e.usage).toContain('token create --user U');
    });
  });

  describe('seed demo', () => {
    it('parses', () => {
      expect(parseCli(['seed', 'demo'])).toEqual({ kind: 'seed-demo' });
    });

    it('refuses extra arguments and options', () => {
      expect(usageError(['seed', 'demo', 'now']).message).toMatch(/Unexpected argument 'now'/);
      expect(usageError(['seed', 'demo', '--force']).message).toMatch(/Unknown option '--force'/);
    });
  });

  describe('status', () => {
    it('parses, with or without --json', () => {
      expect(parseCli(['status'])).toEqual({ kind: 'status', json: false });
      expect(parseCli(['status', '--json'])).toEqual({ kind: 'status', json: true });
      expect(parseCli(['status', '--help'])).toEqual({ kind: 'help', topic: 'status' });
    });

    it('refuses extra arguments and options', () => {
      expect(usageError(['status', 'now']).message).toMatch(/status: Unexpected argument 'now'/);
      expect(usageError(['status', '--watch']).message).toMatch(/Unknown option '--watch'/);
      expect(usageError(['status', '--json=yes']).usage).toContain('status [--json]');
    });
  });

  describe('commands and help', () => {
    it.each([
      [[], /^missing command$/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['--username', 'x'], /missing command before "--username"/],
      [['user'], /user: missing action; known: "user create"/],
      [['user', 'delete'], /user: unknown action "delete"; known: "user create"/],
      [['seed', 'everything'], /seed: unknown action "everything"/],
    ])('refuses %j with the general usage', (argv, message) => {
      const e = usageError(argv);
      expect(e.message).toMatch(message);
      expect(e.usage).toBeNull();
    });

    it('answers --help, -h and help with the general help, and a topic with its usage', () => {
      expect(parseCli(['--help'])).toEqual({ kind: 'help', topic: null });
      expect(parseCli(['-h'])).toEqual({ kind: 'help', topic: null });
      expect(parseCli(['help', 'token', 'create'])).toEqual({ kind: 'help', topic: 'token create' });
      expect(parseCli(['user', 'create', '--help'])).toEqual({ kind: 'help', topic: 'user create' });
      expect(parseCli(['token', 'create', '-h'])).toEqual({ kind: 'help', topic: 'token create' });
    });

    it('lists every command in the general help and gives each its own usage', () => {
      const help = generalHelp();
      for (const name of ['user create', 'token create', 'seed demo', 'status']) {
        expect(help).toContain(`  ${name}`);
        expect(helpFor(name)).toMatch(new RegExp(`^Usage: npm run cli -- ${name}`));
      }
      expect(helpFor('nonsense')).toBe(help);
      expect(helpFor(null)).toBe(help);
    });
  });
});

describe('token list and token revoke', () => {
  const ID = '5b0c2a3e-9d1f-4c6b-8e2a-7f3d9c1b0a42';

  it('parses a listing and the two ways of revoking', () => {
    expect(parseCli(['token', 'list', '--user', 'zoe'])).toEqual({ kind: 'token-list', username: 'zoe' });
    expect(parseCli(['token', 'revoke', '--user', 'zoe', '--all'])).toEqual({
      kind: 'token-revoke',
      username: 'zoe',
      tokenId: null,
    });
    expect(parseCli(['token', 'revoke', '--user', 'zoe', '--id', ID.toUpperCase()])).toEqual({
      kind: 'token-revoke',
      username: 'zoe',
      tokenId: ID,
    });
  });

  it.each([
    [['token', 'revoke', '--user', 'zoe'], /exactly one of --all and --id/],
    [['token', 'revoke', '--user', 'zoe', '--all', '--id', ID], /exactly one of --all and --id/],
    [['token', 'revoke', '--user', 'zoe', '--id', 'x'], /not a token id/],
    [['token', 'list'], /missing --user/],
  ])('refuses %j', (argv, why) => {
    expect(() => parseCli(argv)).toThrow(why);
  });
});
