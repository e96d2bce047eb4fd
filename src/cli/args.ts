import { parseArgs } from 'node:util';
import { text, UsageError, UUID, type CommandSpec as Spec, type OptionValues } from './command-spec';
import { WEBHOOK_COMMANDS, type WebhookCommand } from './webhook-args';

/** A command line, parsed and validated; nothing here touches the database. */
export type CliCommand =
  | { readonly kind: 'help'; readonly topic: string | null }
  | {
      readonly kind: 'user-create';
      readonly username: string;
      readonly displayName: string;
      readonly locale: string;
      readonly admin: boolean;
      readonly groups: readonly string[];
    }
  | { readonly kind: 'user-list' }
  | { readonly kind: 'token-create'; readonly username: string; readonly label: string }
  | { readonly kind: 'token-list'; readonly username: string }
  | {
      readonly kind: 'token-revoke';
      readonly username: string;
      /** One token by id, or null with `--all`: every token of the user not yet revoked. */
      readonly tokenId: string | null;
    }
  | { readonly kind: 'group-map-list' }
  | {
      readonly kind: 'group-map-add';
      readonly value: string;
      readonly group: string;
      readonly admin: boolean;
    }
  | { readonly kind: 'seed-demo' }
  | { readonly kind: 'status'; readonly json: boolean }
  | WebhookCommand;

export { UsageError };

type CommandSpec = Spec<CliCommand>;

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const LOCALE = /^[a-z]{2,3}([-_][A-Za-z0-9]{2,8}){0,2}$/;

function username(values: OptionValues, name: string): string {
  const value = text(values, name, 64);
  if (!USERNAME.test(value)) {
    throw new UsageError(
      `--${name} "${value}" is not a valid username: use letters, digits, '.', '_' or '-' (at most 64, starting with a letter or digit)`,
    );
  }
  return value;
}

// A new command (`status`, say) is a spec here (one or two words), a `CliCommand` variant and
// a case in execute.ts (or a branch in run.ts if it needs no database).
const COMMANDS: readonly CommandSpec[] = [
  {
    words: ['user', 'create'],
    summary: 'create a user',
    usage: [
      'user create --username U [--admin] [--group G]... [--display-name N] [--locale L]',
      '',
      '  --username U        login name: letters, digits, ".", "_", "-" (at most 64)',
      '  --admin             make the user an admin (may do everything)',
      '  --group G           add the user to the existing group G (repeat for several)',
      '  --display-name N    name shown to others (default: the username)',
      '  --locale L          e.g. en, de, en-GB (default: en)',
    ].join('\n'),
    options: {
      username: { type: 'string' },
      admin: { type: 'boolean' },
      group: { type: 'string', multiple: true },
      'display-name': { type: 'string' },
      locale: { type: 'string' },
    },
    build(values) {
      const name = username(values, 'username');
      const locale = text(values, 'locale', 16, 'en');
      if (!LOCALE.test(locale))
        throw new UsageError(`--locale "${locale}" is not a locale such as en or de-CH`);
      const groups = ((values.group as string[] | undefined) ?? []).map((g) => g.trim());
      const bad = groups.find((g) => g.length === 0 || g.length > 100);
      if (bad !== undefined)
        throw new UsageError(`--group "${bad}" is not a group name (1 to 100 characters)`);
      return {
        kind: 'user-create',
        username: name,
        displayName: text(values, 'display-name', 200, name),
        locale,
        admin: values.admin === true,
        groups: [...new Set(groups)],
      };
    },
  },
  {
    words: ['user', 'list'],
    summary: 'list every user with its groups and active tokens',
    usage: [
      'user list',
      '',
      'One line per user, by username: id, username, display name, locale, admin, groups and',
      'the number of active tokens (not revoked, not expired).',
    ].join('\n'),
    options: {},
    build: () => ({ kind: 'user-list' }),
  },
  {
    words: ['group-map', 'list'],
    summary: "list the mapping of the identity provider's groups claim to groups",
    usage: [
      'group-map list',
      '',
      'One line per mapping: id, claim value, group, and whether it grants admin rights.',
    ].join('\n'),
    options: {},
    build: () => ({ kind: 'group-map-list' }),
  },
  {
    words: ['group-map', 'add'],
    summary: "map a value of the identity provider's groups claim to a group",
    usage: [
      'group-map add --value V --group G [--admin]',
      '',
      '  --value V    the value as the groups claim carries it (at most 200 characters)',
      '  --group G    the existing group its users join at their next sign-in',
      '  --admin      users with this value are admins (the only way a token grants admin rights)',
    ].join('\n'),
    options: { value: { type: 'string' }, group: { type: 'string' }, admin: { type: 'boolean' } },
    build(values) {
      return {
        kind: 'group-map-add',
        value: text(values, 'value', 200),
        group: text(values, 'group', 100),
        admin: values.admin === true,
      };
    },
  },
  {
    words: ['token', 'create'],
    summary: 'create a personal access token (printed alone on the last line)',
    usage: [
      'token create --user U [--label L]',
      '',
      '  --user U     the username the token authenticates as',
      '  --label L    what the token is for (default: cli; at most 200 characters)',
      '',
      'The token is shown once, alone on the last line of the output; only its SHA-256 is stored.',
    ].join('\n'),
    options: { user: { type: 'string' }, label: { type: 'string' } },
    build(values) {
      return {
        kind: 'token-create',
        username: username(values, 'user'),
        label: text(values, 'label', 200, 'cli'),
      };
    },
  },
  {
    words: ['token', 'list'],
    summary: "list a user's tokens (revoked and expired included), never their secrets",
    usage: [
      'token list --user U',
      '',
      '  --user U     the username whose tokens to list',
      '',
      'One line per token, newest first: id, label, created (and by whom), last used, expiry,',
      'revocation.',
    ].join('\n'),
    options: { user: { type: 'string' } },
    build: (values) => ({ kind: 'token-list', username: username(values, 'user') }),
  },
  {
    words: ['token', 'revoke'],
    summary: "revoke one of a user's tokens, or all of them",
    usage: [
      'token revoke --user U (--all | --id ID)',
      '',
      '  --user U     the username whose token(s) to revoke',
      '  --all        every token of the user not yet revoked',
      '  --id ID      the one token with this id (see `token list`)',
      '',
      'Revoked tokens stop working at once (a running server re-reads them on every request).',
    ].join('\n'),
    options: { user: { type: 'string' }, all: { type: 'boolean' }, id: { type: 'string' } },
    build(values) {
      const all = values.all === true;
      const id = typeof values.id === 'string' ? values.id.trim() : null;
      if (all === (id !== null)) throw new UsageError('give exactly one of --all and --id');
      if (id !== null && !UUID.test(id)) throw new UsageError(`--id "${id}" is not a token id (a UUID)`);
      return { kind: 'token-revoke', username: username(values, 'user'), tokenId: id?.toLowerCase() ?? null };
    },
  },
  {
    words: ['seed', 'demo'],
    summary: 'load the demo data set (idempotent: a second run changes nothing)',
    usage: [
      'seed demo',
      '',
      'Loads the demo users, groups, site, pages, skills, configurations and tasks.',
      'In the embedded mode the first load also creates a token per demo user, prints them',
      'and writes them to DATA_DIR/demo-tokens.json.',
    ].join('\n'),
    options: {},
    build: () => ({ kind: 'seed-demo' }),
  },
  {
    words: ['status'],
    summary: 'report how the workers are doing (exit code 1 when unhealthy)',
    usage: [
      'status [--json]',
      '',
      '  --json    print the figures as one JSON object',
      '',
      'Prints the live workers, queued runs, recorded decisions, expired leases and the oldest',
      'wait, as the workerStatus query does. Healthy: no expired lease, the oldest wait under',
      '300 s and at least one live worker. Exit codes: 0 healthy, 1 unhealthy (or failed).',
    ].join('\n'),
    options: { json: { type: 'boolean' } },
    build: (values) => ({ kind: 'status', json: values.json === true }),
  },
  ...WEBHOOK_COMMANDS,
];

const PROGRAM = 'npm run cli --';

/** The general help: every command with its summary, and the environment it reads. */
export function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.words.join(' ').length)) + 2;
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.words.join(' ').padEnd(width)}${c.summary}`),
    '',
    `Run \`${PROGRAM} <command> --help\` for a command's options.`,
    '',
    'Database: DATABASE_URL (PostgreSQL) where set, else the embedded database in DATA_DIR',
    '(default ./data). The embedded database is one session: stop the server before using the',
    'CLI on it. Pending migrations run first where DB_MIGRATE is on (the embedded default);',
    'otherwise the CLI refuses an unmigrated database (run `npm run migration:run`).',
    '',
    'Exit codes: 0 done, 1 failed (the message says why; `status`: unhealthy), 2 bad command line.',
  ].join('\n');
}

function commandHelp(spec: CommandSpec): string {
  return `Usage: ${PROGRAM} ${spec.usage}`;
}

/** The usage text of a command named by its words, or null when there is none. */
export function helpFor(topic: string | null): string {
  const spec = topic === null ? undefined : COMMANDS.find((c) => c.words.join(' ') === topic);
  return spec ? commandHelp(spec) : generalHelp();
}

function findCommand(argv: readonly string[]): CommandSpec {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-') || words.length === 2) break;
    words.push(arg);
  }
  if (words.length === 0) throw new UsageError(`missing command before "${argv[0] ?? ''}"`);
  const exact = COMMANDS.find((c) => c.words.every((w, i) => words[i] === w));
  if (exact) return exact;
  const first = words[0] ?? '';
  const sameGroup = COMMANDS.filter((c) => c.words[0] === first);
  if (sameGroup.length > 0) {
    const known = sameGroup.map((c) => `"${c.words.join(' ')}"`).join(', ');
    const what = words[1] === undefined ? 'missing action' : `unknown action "${words[1]}"`;
    throw new UsageError(`${first}: ${what}; known: ${known}`);
  }
  throw new UsageError(`unknown command "${first}"`);
}

function parseOptions(spec: CommandSpec, rest: string[]): OptionValues {
  try {
    const { values, tokens } = parseArgs({
      args: rest,
      options: { ...spec.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
    const seen = new Set<string>();
    for (const t of tokens) {
      if (t.kind !== 'option' || spec.options[t.name]?.multiple) continue;
      if (seen.has(t.name)) throw new UsageError(`--${t.name} given more than once`);
      seen.add(t.name);
    }
    return values;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (e instanceof UsageError || !err.code?.startsWith('ERR_PARSE_ARGS_')) throw e;
    throw new UsageError(err.message.split('\n').slice(0, 2).join(' '));
  }
}

/**
 * Parses the CLI's arguments (what follows `npm run cli --`). Throws `UsageError` with a
 * message naming the problem (unknown command or option, missing or invalid value).
 */
export function parseCli(argv: readonly string[]): CliCommand {
  if (argv.length === 0) throw new UsageError('missing command');
  const head = argv[0] ?? '';
  if (head === '--help' || head === '-h' || head === 'help') {
    const topic = argv.slice(1).join(' ');
    return { kind: 'help', topic: topic.length > 0 ? topic : null };
  }
  const spec = findCommand(argv);
  const name = spec.words.join(' ');
  try {
    const values = parseOptions(spec, argv.slice(spec.words.length));
    if (values.help === true) return { kind: 'help', topic: name };
    return spec.build(values);
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`${name}: ${e.message}`, commandHelp(spec));
    throw e;
  }
}
