// Hostile input (issue 7): every mutation of schema.gql, every argument, fuzzed from one table.
// Wrong types, missing and null values, empty, over-long and 1 MB strings, NUL bytes, malformed
// and unknown ids, unknown enum values, out-of-range integers (2^31, 2^53), JSON 64 levels deep
// or over 64 KB. Each case must be refused with a contract code (never HTTP 500 nor
// INTERNAL_SERVER_ERROR), write nothing (every table's rows fingerprinted before and after),
// log no error, and leave the server answering. Each mutation's valid baseline is sent last and
// must be accepted (and seen as a write), so every refusal came from the fuzzed value alone.
// limits.e2e-spec.ts covers each document limit once over both transports; here the limits are
// hit by mutations (nothing written) and under concurrent legitimate traffic.
import { Logger } from '@nestjs/common';
import type { Client as WsClient } from 'graphql-ws';
import { ERROR_CODES } from '../../src/common/error-codes';
import { createUserWithToken, digestOf, startResting } from '../support/decisions';
import { demoIds, until } from '../support/runs';
import { bootTestApp, GqlResponse, TestApp } from '../support/test-app';

type Vars = Record<string, unknown>;
type Kind =
  | 'string'
  | 'serialId'
  | 'uuid'
  | 'int'
  | 'bool'
  | 'enum'
  | 'json'
  | 'date'
  | 'idList'
  | 'stringList'
  | 'object';

/** One argument of a mutation (a field of its input object, or a root argument). */
interface ArgSpec {
  /** Its name; a dotted path for a field of a nested input object (`viewContext.pageId`). */
  readonly name: string;
  readonly kind: Kind;
  /** Non-null in the schema: null and a missing value are refused too. */
  readonly required?: boolean;
  /** Strings: '' is refused. */
  readonly nonEmpty?: boolean;
  /** Strings and list items: the longest accepted length; ints: the largest accepted value. */
  readonly max?: number;
  /** Ints: the smallest accepted value. */
  readonly min?: number;
  /** Lists: the most items accepted. */
  readonly maxItems?: number;
  /** A well-formed value that names nothing (refused as unknown). */
  readonly unknown?: unknown;
  /** Strings with a pattern (identifiers, usernames, locales): a value breaking it. */
  readonly offPattern?: string;
  /** JSON: puts a hostile value where the otherwise valid value is permissive. */
  readonly embed?: (hostile: unknown) => unknown;
  /** Codes besides BAD_USER_INPUT that a refusal of this argument may carry. */
  readonly alsoCodes?: readonly string[];
}

interface Fixture {
  ids: Awaited<ReturnType<typeof demoIds>>;
  editors: string;
  approveRun: Waiting;
  denyRun: Waiting;
  inputRun: Waiting;
  cancelRun: string;
  tokenId: string;
  /** A user whose tokens the revokeApiTokens baseline revokes (no demo user's). */
  tokenUser: string;
  conversations: { skill: string; send: string; approval: Waiting; input: Waiting };
}

interface Waiting {
  id: string;
  digest: string;
}

/** One mutation of schema.gql: its document, who sends it, its arguments and a valid baseline. */
interface MutationSpec {
  readonly name: string;
  readonly as: string;
  readonly document: string;
  /** The variable holding the input object; null where the arguments are root variables. */
  readonly inputVar: string | null;
  readonly args: readonly ArgSpec[];
  readonly base: (f: Fixture) => Vars;
}

const RECEIPT = 'path decision { id } run { id status }';
const inputMutation = (name: string, type: string, selection: string): string =>
  `mutation Fuzz($input: ${type}!) { ${name}(input: $input) { ${selection} } }`;

const RUN_ID: ArgSpec = {
  name: 'runId',
  kind: 'uuid',
  required: true,
  unknown: '5b0c2a3e-9d1f-4c6b-8e2a-7f3d9c1b0a42',
  alsoCodes: ['NOT_FOUND'],
};
const DECISION_ARGS: readonly ArgSpec[] = [
  RUN_ID,
  { name: 'turnDigest', kind: 'string', required: true, nonEmpty: true, max: 128 },
  { name: 'idempotencyKey', kind: 'string', nonEmpty: true, max: 200 },
  { name: 'path', kind: 'enum', unknown: 'inline' },
];
const decisionBase = (run: Waiting, key: string): Vars => ({
  input: { runId: run.id, turnDigest: run.digest, idempotencyKey: key, path: 'INLINE' },
});

const CONVERSATION_ID: ArgSpec = {
  name: 'conversationId',
  kind: 'uuid',
  required: true,
  unknown: '5b0c2a3e-9d1f-4c6b-8e2a-7f3d9c1b0a42',
  alsoCodes: ['NOT_FOUND'],
};

const IDENTIFIER = {
  kind: 'string',
  required: true,
  nonEmpty: true,
  max: 100,
  offPattern: 'Not An Id!',
} as const;

/** A scripted provider script whose tool arguments take any JSON object. */
const scriptWith = (args: unknown): unknown => ({
  rounds: [{ text: 'fuzz', toolCalls: [{ name: 'pages_read', arguments: args }] }],
});

/**
 * Every mutation in schema.gql. A new mutation (the conversation mutations) is one entry here:
 * its document, its arguments with their kinds and limits, and a baseline that succeeds.
 */
const MUTATIONS: readonly MutationSpec[] = [
  {
    name: 'startRun',
    as: 'alice',
    document: inputMutation('startRun', 'StartRunInput', 'id status'),
    inputVar: 'input',
    args: [
      {
        name: 'configurationId',
        kind: 'serialId',
        required: true,
        unknown: '2147483647',
        alsoCodes: ['NOT_FOUND'],
      },
      { name: 'prompt', kind: 'string', required: true, nonEmpty: true, max: 20_000 },
      { name: 'subjectPageId', kind: 'serialId', unknown: '2147483647', alsoCodes: ['NOT_FOUND'] },
      { name: 'subjectLanguageId', kind: 'int', min: 0, max: 1_000_000 },
      { name: 'maxIterations', kind: 'int', min: 1, max: 1_000_000 },
      { name: 'workspaceId', kind: 'int', min: 0, max: 1_000_000 },
    ],
    base: (f) => ({
      input: {
        configurationId: f.ids.configurations['demo-editor'],
        prompt: 'Sharpen the SEO title',
        subjectPageId: f.ids.pages.Home,
        subjectLanguageId: 0,
        maxIterations: 3,
        workspaceId: 0,
      },
    }),
  },
  {
    name: 'approveRun',
    as: 'admin',
    document: inputMutation('approveRun', 'ApproveRunInput', RECEIPT),
    inputVar: 'input',
    args: DECISION_ARGS,
    base: (f) => decisionBase(f.approveRun, 'fuzz-approve'),
  },
  {
    name: 'denyRun',
    as: 'admin',
    document: inputMutation('denyRun', 'DenyRunInput', RECEIPT),
    inputVar: 'input',
    args: [...DECISION_ARGS, { name: 'reason', kind: 'enum', unknown: 'skip' }],
    base: (f) => {
      const vars = decisionBase(f.denyRun, 'fuzz-deny');
      return { input: { ...(vars.input as Vars), reason: 'SKIP' } };
    },
  },
  {
    name: 'submitRunInput',
    as: 'admin',
    document: inputMutation('submitRunInput', 'SubmitRunInputInput', RECEIPT),
    inputVar: 'input',
    args: [
      ...DECISION_ARGS,
      {
        name: 'values',
        kind: 'json',
        required: true,
        embed: (hostile) => ({ tone: 'formal', note: hostile }),
        alsoCodes: ['INVALID_INPUT'],
      },
    ],
    base: (f) => {
      const vars = decisionBase(f.inputRun, 'fuzz-submit');
      return { input: { ...(vars.input as Vars), values: { tone: 'formal' } } };
    },
  },
  {
    name: 'cancelRun',
    as: 'alice',
    document: 'mutation Fuzz($runId: ID!) { cancelRun(runId: $runId) { id status } }',
    inputVar: null,
    args: [RUN_ID],
    base: (f) => ({ runId: f.cancelRun }),
  },
  {
    name: 'upsertConfiguration',
    as: 'admin',
    document: inputMutation('upsertConfiguration', 'ConfigurationInput', 'id identifier'),
    inputVar: 'input',
    args: [
      { name: 'identifier', ...IDENTIFIER },
      { name: 'name', kind: 'string', required: true, nonEmpty: true, max: 200 },
      { name: 'provider', kind: 'string', required: true, nonEmpty: true, max: 32, unknown: 'nope' },
      { name: 'model', kind: 'string', required: true, nonEmpty: true, max: 200 },
      { name: 'providerOptions', kind: 'json', embed: scriptWith },
      { name: 'systemPrompt', kind: 'string', max: 50_000 },
      { name: 'isActive', kind: 'bool' },
      { name: 'requireSecondApprover', kind: 'bool' },
      // above the ceiling is stored clamped (docs/run-lifecycle.md): no maximum to refuse
      { name: 'maxIterations', kind: 'int', min: 1 },
      { name: 'privacyLevel', kind: 'enum', unknown: 'full' },
      { name: 'allowedGroupIds', kind: 'idList', maxItems: 100, unknown: ['2147483647'] },
      { name: 'skillIdentifiers', kind: 'stringList', max: 100, maxItems: 100, unknown: ['no-such-skill'] },
    ],
    base: (f) => ({
      input: {
        identifier: 'fuzz-configuration',
        name: 'Fuzz',
        provider: 'scripted',
        model: 'scripted',
        providerOptions: scriptWith({ pageId: 1 }),
        systemPrompt: 'Be brief.',
        isActive: true,
        requireSecondApprover: false,
        maxIterations: 3,
        privacyLevel: 'FULL',
        allowedGroupIds: [f.editors],
        skillIdentifiers: ['tone-of-voice'],
      },
    }),
  },
  {
    name: 'upsertTask',
    as: 'admin',
    document: inputMutation('upsertTask', 'TaskInput', 'id identifier'),
    inputVar: 'input',
    args: [
      { name: 'identifier', ...IDENTIFIER },
      { name: 'name', kind: 'string', required: true, nonEmpty: true, max: 200 },
      {
        name: 'configurationIdentifier',
        kind: 'string',
        required: true,
        nonEmpty: true,
        max: 100,
        unknown: 'no-such-configuration',
      },
      { name: 'skillIdentifiers', kind: 'stringList', max: 100, maxItems: 100, unknown: ['no-such-skill'] },
      { name: 'groupIds', kind: 'idList', maxItems: 100, unknown: ['2147483647'] },
      { name: 'priority', kind: 'int', min: -1_000_000, max: 1_000_000 },
    ],
    base: (f) => ({
      input: {
        identifier: 'fuzz-task',
        name: 'Fuzz',
        configurationIdentifier: 'demo-editor',
        skillIdentifiers: ['tone-of-voice'],
        groupIds: [f.editors],
        priority: 3,
      },
    }),
  },
  {
    name: 'upsertSkill',
    as: 'admin',
    document: inputMutation('upsertSkill', 'SkillInput', 'id identifier'),
    inputVar: 'input',
    args: [
      { name: 'identifier', ...IDENTIFIER },
      { name: 'name', kind: 'string', required: true, nonEmpty: true, max: 200 },
      { name: 'description', kind: 'string', max: 2_000 },
      { name: 'body', kind: 'string', required: true, nonEmpty: true, max: 60_000 },
      { name: 'isProcess', kind: 'bool' },
      { name: 'enabled', kind: 'bool' },
    ],
    base: () => ({
      input: {
        identifier: 'fuzz-skill',
        name: 'Fuzz',
        description: 'A skill',
        body: 'Write short.',
        isProcess: false,
        enabled: true,
      },
    }),
  },
  {
    name: 'createUser',
    as: 'admin',
    document: inputMutation('createUser', 'CreateUserInput', 'id username'),
    inputVar: 'input',
    args: [
      { name: 'username', kind: 'string', required: true, nonEmpty: true, max: 64, offPattern: 'Fuzz User' },
      { name: 'displayName', kind: 'string', max: 200 },
      { name: 'locale', kind: 'string', nonEmpty: true, max: 16, offPattern: 'english!' },
      { name: 'isAdmin', kind: 'bool' },
      { name: 'groupIds', kind: 'idList', maxItems: 100, unknown: ['2147483647'], alsoCodes: ['NOT_FOUND'] },
    ],
    base: (f) => ({
      input: {
        username: 'fuzz-user',
        displayName: 'Fuzz',
        locale: 'de',
        isAdmin: false,
        groupIds: [f.editors],
      },
    }),
  },
  {
    name: 'createApiToken',
    as: 'admin',
    document: `mutation Fuzz($userId: ID!, $label: String!, $expiresAt: DateTime) {
      createApiToken(userId: $userId, label: $label, expiresAt: $expiresAt) { tokenId } }`,
    inputVar: null,
    args: [
      // why: an admin naming another user is FORBIDDEN (tokens for others come from the CLI)
      { name: 'userId', kind: 'serialId', required: true, unknown: '2147483647', alsoCodes: ['FORBIDDEN'] },
      { name: 'label', kind: 'string', required: true, nonEmpty: true, max: 200 },
      { name: 'expiresAt', kind: 'date' },
    ],
    base: (f) => ({ userId: f.ids.users.admin, label: 'fuzz', expiresAt: '2999-01-01T00:00:00.000Z' }),
  },
  {
    name: 'revokeApiToken',
    as: 'admin',
    document: 'mutation Fuzz($tokenId: ID!) { revokeApiToken(tokenId: $tokenId) }',
    inputVar: null,
    args: [
      {
        name: 'tokenId',
        kind: 'uuid',
        required: true,
        unknown: '5b0c2a3e-9d1f-4c6b-8e2a-7f3d9c1b0a42',
        alsoCodes: ['NOT_FOUND'],
      },
    ],
    base: (f) => ({ tokenId: f.tokenId }),
  },
  {
    name: 'revokeApiTokens',
    as: 'admin',
    document: 'mutation Fuzz($userId: ID!) { revokeApiTokens(userId: $userId) }',
    inputVar: null,
    args: [
      { name: 'userId', kind: 'serialId', required: true, unknown: '2147483647', alsoCodes: ['NOT_FOUND'] },
    ],
    base: (f) => ({ userId: f.tokenUser }),
  },
  {
    name: 'createConversation',
    as: 'alice',
    document: inputMutation('createConversation', 'CreateConversationInput', 'id status'),
    inputVar: 'input',
    args: [
      { name: 'pageId', kind: 'serialId', unknown: '2147483647', alsoCodes: ['PAGE_NOT_ACCESSIBLE'] },
      { name: 'languageId', kind: 'int', min: 0, unknown: 2, alsoCodes: ['LANGUAGE_NOT_ACCESSIBLE'] },
      { name: 'skill', kind: 'string', max: 100, unknown: 'no-such-skill', alsoCodes: ['SKILL_UNKNOWN'] },
      { name: 'title', kind: 'string', max: 200 },
    ],
    base: (f) => ({
      input: { pageId: f.ids.pages.Home, languageId: 1, skill: 'tone-of-voice', title: 'Fuzz' },
    }),
  },
  {
    name: 'setConversationSkill',
    as: 'alice',
    document: inputMutation('setConversationSkill', 'SetConversationSkillInput', 'id status'),
    inputVar: 'input',
    args: [
      { ...CONVERSATION_ID },
      { name: 'skill', kind: 'string', max: 100, unknown: 'no-such-skill', alsoCodes: ['SKILL_UNKNOWN'] },
    ],
    base: (f) => ({ input: { conversationId: f.conversations.skill, skill: 'tone-of-voice' } }),
  },
  {
    name: 'sendMessage',
    as: 'alice',
    document: inputMutation('sendMessage', 'SendMessageInput', 'id status'),
    inputVar: 'input',
    args: [
      { ...CONVERSATION_ID },
      { name: 'text', kind: 'string', required: true, nonEmpty: true, max: 20_000 },
      { name: 'viewContext', kind: 'object' },
      {
        name: 'viewContext.pageId',
        kind: 'serialId',
        unknown: '2147483647',
        alsoCodes: ['NOT_FOUND', 'PAGE_NOT_ACCESSIBLE'],
      },
      { name: 'viewContext.languageId', kind: 'int', min: 0 },
      { name: 'viewContext.module', kind: 'string', max: 100 },
    ],
    base: (f) => ({
      input: {
        conversationId: f.conversations.send,
        text: 'What is on this page?',
        viewContext: { pageId: f.ids.pages.About, languageId: 0, module: 'page' },
      },
    }),
  },
  {
    name: 'decideConversationApproval',
    as: 'alice',
    document: inputMutation('decideConversationApproval', 'DecideConversationInput', 'id status'),
    inputVar: 'input',
    args: [
      { ...CONVERSATION_ID },
      { name: 'turnDigest', kind: 'string', required: true, nonEmpty: true, max: 128 },
      { name: 'approve', kind: 'bool', required: true },
      { name: 'denialReason', kind: 'enum', unknown: 'skip' },
    ],
    base: (f) => ({
      input: {
        conversationId: f.conversations.approval.id,
        turnDigest: f.conversations.approval.digest,
        approve: false,
        denialReason: 'SKIP',
      },
    }),
  },
  {
    name: 'submitConversationInput',
    as: 'alice',
    document: inputMutation('submitConversationInput', 'SubmitConversationInputInput', 'id status'),
    inputVar: 'input',
    args: [
      { ...CONVERSATION_ID },
      { name: 'turnDigest', kind: 'string', required: true, nonEmpty: true, max: 128 },
      {
        name: 'values',
        kind: 'json',
        required: true,
        embed: (hostile) => ({ tone: 'formal', note: hostile }),
        alsoCodes: ['INVALID_INPUT'],
      },
    ],
    base: (f) => ({
      input: {
        conversationId: f.conversations.input.id,
        turnDigest: f.conversations.input.digest,
        values: { tone: 'formal' },
      },
    }),
  },
];

/** A value the case leaves out of the variables altogether. */
const MISSING = Symbol('missing');

interface Case {
  readonly label: string;
  readonly value: unknown;
  /** The body limit answers before GraphQL does. */
  readonly tooLarge?: boolean;
  /** Codes besides BAD_USER_INPUT this case may be refused with. */
  readonly codes?: readonly string[];
}

const MB = 1024 * 1024;
const INT32 = 2 ** 31;
const NUL = 'a\u0000b';

/** JSON text sent as it is: the client's own JSON.stringify would overflow its stack on it. */
class RawJson {
  constructor(readonly text: string) {}
}

/** A request body; RawJson values are spliced in as their text. */
function bodyOf(payload: unknown): string {
  const raws: RawJson[] = [];
  const text = JSON.stringify(payload, (_key, value: unknown) => {
    if (!(value instanceof RawJson)) return value;
    raws.push(value);
    return `__raw_json_${raws.length - 1}__`;
  });
  return raws.reduce((out, raw, i) => out.replace(`"__raw_json_${i}__"`, () => raw.text), text);
}

/** `{ a: { a: ... } }` or `[[ ... ]]` nested `depth` levels deep. */
function nested(depth: number, kind: 'object' | 'array'): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = kind === 'object' ? { a: value } : [value];
  return value;
}

/** A JSON object of about `bytes` serialised bytes, in many small keys. */
function heavy(bytes: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i * 100 < bytes; i++) out[`k${i}`] = 'x'.repeat(90);
  return out;
}

function stringCases(arg: ArgSpec): Case[] {
  const cases: Case[] = [
    { label: 'a number', value: 42 },
    { label: 'a boolean', value: true },
    { label: 'an object', value: { a: 1 } },
    { label: 'a list', value: ['x'] },
    { label: 'a NUL byte inside', value: NUL },
    { label: 'only a NUL byte', value: '\u0000' },
    { label: 'a 1 MB string', value: 'x'.repeat(MB), tooLarge: true },
  ];
  if (arg.nonEmpty) cases.push({ label: 'an empty string', value: '' });
  if (arg.max !== undefined) {
    cases.push({ label: `${arg.max + 1} characters`, value: 'x'.repeat(arg.max + 1) });
    cases.push({ label: 'a 900 KB string (under the body limit)', value: 'x'.repeat(900_000) });
  }
  if (arg.offPattern !== undefined) cases.push({ label: 'off its pattern', value: arg.offPattern });
  return cases;
}

function serialIdCases(): Case[] {
  return [
    { label: 'a boolean', value: true },
    { label: 'a float', value: 1.5 },
    { label: 'an object', value: { id: 1 } },
    ...['', '0', '-1', 'abc', '1.5', '1e3', ' 1', '0x10', '2147483648', '9007199254740993'].map((v) => ({
      label: `id ${JSON.stringify(v)}`,
      value: v,
    })),
    { label: 'id with a NUL byte', value: '1\u00001' },
    { label: 'a 65-digit id', value: '1'.repeat(65) },
    { label: 'a negative number', value: -1 },
    { label: 'a 2^53 number', value: 2 ** 53 },
    { label: 'a 1 MB id', value: '1'.repeat(MB), tooLarge: true },
  ];
}

function uuidCases(): Case[] {
  return [
    { label: 'a boolean', value: true },
    { label: 'a float', value: 1.5 },
    { label: 'a number', value: 42 },
    { label: 'an object', value: { id: 'x' } },
    ...[
      '',
      'not-a-uuid',
      '00000000-0000-0000-0000-000000000000',
      '-'.repeat(36),
      'a0eebc999c0b4ef8bb6d6bb9bd380a11',
      'a0eebc999c0b4ef8bb6d6bb9bd380a11----',
      '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}',
      'g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      ' a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    ].map((v) => ({ label: `uuid ${JSON.stringify(v)}`, value: v })),
    { label: 'uuid with a NUL byte', value: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\u0000' },
    { label: 'a 1 MB id', value: 'a'.repeat(MB), tooLarge: true },
  ];
}

function intCases(arg: ArgSpec): Case[] {
  const cases: Case[] = [
    { label: 'a numeric string', value: '1' },
    { label: 'a boolean', value: true },
    { label: 'a float', value: 1.5 },
    { label: 'an object', value: { n: 1 } },
    { label: '2^31', value: INT32 },
    { label: '-2^31 - 1', value: -INT32 - 1 },
    { label: '2^53', value: 2 ** 53 },
    { label: '-2^53', value: -(2 ** 53) },
    { label: '1e308', value: 1e308 },
  ];
  if (arg.min !== undefined) cases.push({ label: `${arg.min - 1} (below the minimum)`, value: arg.min - 1 });
  if (arg.min !== undefined && arg.min > -1) cases.push({ label: 'a negative number', value: -1 });
  if (arg.max !== undefined) cases.push({ label: `${arg.max + 1} (above the maximum)`, value: arg.max + 1 });
  return cases;
}

function jsonCases(arg: ArgSpec): Case[] {
  const embed = arg.embed ?? ((v: unknown) => v);
  return [
    { label: 'an object 64 levels deep', value: embed(nested(64, 'object')) },
    { label: 'a list 64 levels deep', value: embed(nested(64, 'array')) },
    {
      label: 'a list 20,000 levels deep',
      value: embed(new RawJson(`${'['.repeat(20_000)}1${']'.repeat(20_000)}`)),
    },
    {
      label: 'an object 20,000 levels deep',
      value: embed(new RawJson(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`)),
    },
    { label: 'a 70 KB object', value: embed(heavy(70 * 1024)) },
    { label: 'a 70 KB string', value: embed('x'.repeat(70 * 1024)) },
    { label: 'a 900 KB object (under the body limit)', value: embed(heavy(900_000)) },
    { label: 'a NUL byte in a string', value: embed({ text: NUL }) },
    { label: 'a NUL byte in a key', value: embed({ [NUL]: 1 }) },
    { label: 'a 1 MB value', value: embed('x'.repeat(MB)), tooLarge: true },
  ];
}

/** The cases for one argument: each value must be refused on its own. */
function casesOf(arg: ArgSpec): Case[] {
  const byKind: Record<Kind, () => Case[]> = {
    string: () => stringCases(arg),
    serialId: serialIdCases,
    uuid: uuidCases,
    int: () => intCases(arg),
    bool: () => [
      { label: 'a string', value: 'true' },
      { label: 'a number', value: 1 },
      { label: 'an object', value: {} },
      { label: 'a NUL string', value: '\u0000' },
    ],
    enum: () => [
      { label: 'an unknown value', value: 'NOPE' },
      { label: 'a number', value: 42 },
      { label: 'an empty string', value: '' },
      { label: 'a NUL byte', value: 'INLINE\u0000' },
      { label: 'a list', value: ['NOPE'] },
    ],
    json: () => jsonCases(arg),
    object: () => [
      { label: 'a string', value: 'x' },
      { label: 'a number', value: 42 },
      { label: 'a list of strings', value: ['x'] },
      { label: 'an unknown field', value: { nope: 1 } },
    ],
    date: () => [
      { label: 'not a date', value: 'not-a-date' },
      { label: 'an empty string', value: '' },
      { label: 'a number', value: 42 },
      { label: 'an impossible date', value: '2024-13-45T99:99:99Z' },
      { label: 'a past date', value: '2020-01-01T00:00:00.000Z' },
      { label: 'a NUL byte', value: '2999-01-01T00:00:00.000Z\u0000' },
    ],
    idList: () => [
      { label: 'a malformed id (coerced into a list)', value: 'abc' },
      { label: 'a null item', value: [null] },
      { label: 'a boolean item', value: [true] },
      ...['', '0', '-1', '2147483648', '1\u00001'].map((v) => ({
        label: `item ${JSON.stringify(v)}`,
        value: [v],
      })),
      { label: 'a 1 MB item', value: ['1'.repeat(MB)], tooLarge: true },
    ],
    stringList: () => [
      { label: 'a null item', value: [null] },
      { label: 'a number item', value: [42] },
      { label: 'an empty item', value: [''] },
      { label: 'a NUL item', value: [NUL] },
      ...(arg.max !== undefined ? [{ label: 'an over-long item', value: ['x'.repeat(arg.max + 1)] }] : []),
    ],
  };
  const cases = byKind[arg.kind]();
  if (arg.kind === 'enum' && typeof arg.unknown === 'string') {
    cases.push({ label: 'a lower-case value', value: arg.unknown });
  } else if (arg.unknown !== undefined) {
    cases.push({ label: 'an unknown but well-formed value', value: arg.unknown });
  }
  if (arg.required) {
    cases.push({ label: 'null', value: null }, { label: 'missing', value: MISSING });
  }
  return cases.map((c) => ({ ...c, codes: [...(c.codes ?? []), ...(arg.alsoCodes ?? [])] }));
}

/** The object holding an argument (following a dotted name) and the argument's own key. */
function holderOf(spec: MutationSpec, vars: Vars, name: string): [Vars, string] {
  const path = name.split('.');
  let holder = spec.inputVar ? (vars[spec.inputVar] as Vars) : vars;
  for (const key of path.slice(0, -1)) holder = holder[key] as Vars;
  return [holder, path[path.length - 1]!];
}

/** The baseline variables with one argument replaced (or left out). */
function withArg(spec: MutationSpec, base: Vars, arg: string, value: unknown): Vars {
  const vars = structuredClone(base);
  const [holder, key] = holderOf(spec, vars, arg);
  if (value === MISSING) delete holder[key];
  else holder[key] = value;
  return vars;
}

/** A list argument with one item more than it takes, from the baseline's first item. */
function overFull(spec: MutationSpec, base: Vars, arg: ArgSpec): Case | null {
  if (arg.maxItems === undefined) return null;
  const [holder, key] = holderOf(spec, base, arg.name);
  const first = (holder[key] as unknown[])[0];
  return { label: `${arg.maxItems + 1} items`, value: Array<unknown>(arg.maxItems + 1).fill(first) };
}

const CONTRACT_CODES = new Set<string>(ERROR_CODES);
/** Apollo's codes for a document that does not parse or validate: refusals of input too. */
const DOCUMENT_CODES = ['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED'];
const REFUSED_INPUT = new Set(['BAD_USER_INPUT', ...DOCUMENT_CODES]);

interface WsAnswer {
  data?: unknown;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

/** One operation over graphql-ws: its result, or the errors of an `error` message. */
function overWs(client: WsClient, query: string, variables?: Vars): Promise<WsAnswer> {
  return new Promise((resolve) => {
    let result: WsAnswer = {};
    client.subscribe(
      { query, variables },
      {
        next: (r) => (result = r as WsAnswer),
        error: (e) => resolve({ errors: Array.isArray(e) ? (e as WsAnswer['errors']) : [] }),
        complete: () => resolve(result),
      },
    );
  });
}

interface Answer {
  status: number;
  contentType: string | null;
  body: Omit<GqlResponse, 'status'> | null;
}

describe('hostile input', () => {
  let t: TestApp;
  let f: Fixture;
  let errorLog: jest.SpyInstance;

  async function post(body: string, as = 'admin'): Promise<Answer> {
    const res = await fetch(t.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        // why: a client that prefers application/graphql-response+json gets the 4xx statuses.
        accept: 'application/graphql-response+json',
        authorization: `Bearer ${t.tokens[as] ?? as}`,
      },
      body,
    });
    const text = await res.text();
    let parsed: Answer['body'];
    try {
      parsed = JSON.parse(text) as Answer['body'];
    } catch {
      parsed = null;
    }
    return { status: res.status, contentType: res.headers.get('content-type'), body: parsed };
  }

  let fingerprintQuery: string | null = null;

  /**
   * Every row of every table (less a token's last use and worker heartbeats), as a count and a
   * digest per table, in one query: equal before and after means nothing was written.
   */
  async function fingerprint(): Promise<Record<string, string>> {
    if (!fingerprintQuery) {
      const tables = await t.dataSource.query<Array<{ name: string }>>(
        `SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            AND table_name NOT IN ('worker_heartbeat', 'migrations') ORDER BY table_name`,
      );
      const row = `(to_jsonb(x) - 'last_used_at')::text`;
      fingerprintQuery = tables
        .map(
          ({ name }) =>
            `SELECT '${name}' AS name, count(*)::int AS n, md5(string_agg(${row}, ',' ORDER BY ${row})) AS h FROM "${name}" x`,
        )
        .join(' UNION ALL ');
    }
    const rows =
      await t.dataSource.query<Array<{ name: string; n: number; h: string | null }>>(fingerprintQuery);
    return Object.fromEntries(rows.map((r) => [r.name, `${r.n} rows ${r.h ?? ''}`]));
  }

  /** What is wrong with the answer to a case that must be refused (empty: nothing). */
  function problemsOf(answer: Answer, mutation: string, c: Case): string[] {
    const problems: string[] = [];
    const codes = answer.body?.errors?.map((e) => e.extensions?.code) ?? [];
    const allowed = new Set([...REFUSED_INPUT, ...(c.codes ?? [])]);
    if (c.tooLarge && answer.status !== 413) problems.push(`HTTP ${answer.status}, not 413`);
    if (!c.tooLarge && answer.status !== 200 && answer.status !== 400) problems.push(`HTTP ${answer.status}`);
    if (!/application\/(graphql-response\+)?json/.test(answer.contentType ?? ''))
      problems.push(`content-type ${answer.contentType}`);
    if (codes.length === 0) problems.push(`no error: ${JSON.stringify(answer.body?.data ?? null)}`);
    for (const code of codes) {
      if (
        typeof code !== 'string' ||
        !(CONTRACT_CODES.has(code) || DOCUMENT_CODES.includes(code)) ||
        code === 'INTERNAL_SERVER_ERROR'
      ) {
        problems.push(`code ${String(code)}`);
      } else if (!allowed.has(code)) {
        problems.push(`code ${code}, expected one of ${[...allowed].join(', ')}`);
      }
    }
    if (answer.body?.data?.[mutation] != null) problems.push('the mutation answered data');
    return problems;
  }

  async function alive(): Promise<boolean> {
    const res = await post(JSON.stringify({ query: '{ viewer { user { username } } }' }));
    const data = res.body?.data as { viewer?: { user?: { username?: string } } } | undefined;
    return res.status === 200 && data?.viewer?.user?.username === 'admin';
  }

  async function conversation(): Promise<string> {
    const res = await t.gql<{ createConversation: { id: string } }>(
      'mutation { createConversation(input: {}) { id } }',
      {},
      'alice',
    );
    if (!res.data) throw new Error(`createConversation: ${JSON.stringify(res.errors)}`);
    return res.data.createConversation.id;
  }

  /** A conversation of alice's whose first turn rests in `expected`, with the digest shown. */
  async function waitingConversation(text: string, expected: string): Promise<Waiting> {
    const id = await conversation();
    const sent = await t.gql(
      'mutation($c: ID!, $t: String!) { sendMessage(input: { conversationId: $c, text: $t }) { id } }',
      { c: id, t: text },
      'alice',
    );
    if (sent.errors) throw new Error(`sendMessage: ${JSON.stringify(sent.errors)}`);
    let state: { status: string; pending: { turnDigest: string } | null } | null = null;
    await until(
      async () => {
        const res = await t.gql<{ conversation: typeof state }>(
          'query($id: ID!) { conversation(id: $id) { status pending { turnDigest } } }',
          { id },
          'alice',
        );
        state = res.data?.conversation ?? null;
        return state !== null && state.status !== 'PROCESSING';
      },
      20_000,
      `conversation ${id} to rest`,
    );
    const rested = state as { status: string; pending: { turnDigest: string } | null } | null;
    if (rested?.status !== expected || !rested.pending) {
      throw new Error(`conversation ${id} rests as ${JSON.stringify(rested)}, not ${expected}`);
    }
    return { id, digest: rested.pending.turnDigest };
  }

  /** Runs `body` with the chat's default Task on another configuration. */
  async function withDefaultTask<T>(configuration: string, body: () => Promise<T>): Promise<T> {
    const point = (identifier: string) =>
      t.dataSource.query(
        `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = $1)
          WHERE identifier = 'default'`,
        [identifier],
      );
    await point(configuration);
    try {
      return await body();
    } finally {
      await point('demo-editor');
    }
  }

  beforeAll(async () => {
    // why: several hundred operations in a minute; the rate limit is limits.e2e-spec's subject.
    t = await bootTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    const ids = await demoIds(t);
    const [editors] = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT id FROM access_group WHERE name = 'editors'`,
    );
    const subject = { prompt: 'Sharpen the SEO title', subjectPageId: ids.pages.Home };
    const editor = { ...subject, configurationId: ids.configurations['demo-editor'] };
    const waiting = async (input: Vars, expected?: string): Promise<{ id: string; digest: string }> => {
      const id = await startResting(t, 'alice', input, expected);
      return { id, digest: await digestOf(t, id) };
    };
    const approveRun = await waiting(editor);
    const denyRun = await waiting(editor);
    const inputRun = await waiting(
      { ...subject, configurationId: ids.configurations['demo-question'] },
      'WAITING_FOR_INPUT',
    );
    const cancelRun = (await waiting(editor)).id;
    const token = await t.gql<{ createApiToken: { tokenId: string } }>(
      'mutation { createApiToken(userId: "' + ids.users.alice + '", label: "revoke me") { tokenId } }',
      {},
      'alice',
    );
    if (!token.data) throw new Error(`createApiToken: ${JSON.stringify(token.errors)}`);
    const conversations = {
      skill: await conversation(),
      send: await conversation(),
      approval: await waitingConversation('Fix the title', 'AWAITING_APPROVAL'),
      input: await withDefaultTask('demo-question', () =>
        waitingConversation('Write me a greeting', 'AWAITING_INPUT'),
      ),
    };
    f = {
      ids,
      editors: String(editors!.id),
      approveRun,
      denyRun,
      inputRun,
      cancelRun,
      tokenId: token.data.createApiToken.tokenId,
      tokenUser: (await createUserWithToken(t, 'fuzz-token-owner', [])).userId,
      conversations,
    };
    errorLog = jest.spyOn(Logger.prototype, 'error');
  });
  afterAll(async () => {
    errorLog.mockRestore();
    await t.close();
  });

  describe.each(MUTATIONS.map((m) => [m.name, m] as const))('%s', (_name, spec) => {
    it.each(spec.args.map((a) => [a.name, a] as const))(
      'refuses every hostile %s with a code and writes nothing',
      async (_arg, arg) => {
        const base = spec.base(f);
        const before = await fingerprint();
        const cases = [...casesOf(arg), overFull(spec, base, arg)].filter((c): c is Case => c !== null);
        const problems: string[] = [];
        for (const c of cases) {
          const vars = withArg(spec, base, arg.name, c.value);
          const answer = await post(bodyOf({ query: spec.document, variables: vars }), spec.as);
          for (const p of problemsOf(answer, spec.name, c)) problems.push(`${arg.name} = ${c.label}: ${p}`);
          const after = await fingerprint();
          for (const table of Object.keys({ ...before, ...after })) {
            if (before[table] !== after[table]) problems.push(`${arg.name} = ${c.label}: wrote to ${table}`);
          }
        }
        expect(problems).toEqual([]);
        expect(await alive()).toBe(true);
      },
    );

    it('refuses a missing, null, mistyped or over-full input as a whole', async () => {
      const before = await fingerprint();
      const base = spec.base(f);
      const wrapper = spec.inputVar;
      const envelopes: Array<[string, Vars | undefined]> = [
        ['no variables', undefined],
        ['empty variables', {}],
        ...(wrapper
          ? ([
              ['a null input', { [wrapper]: null }],
              ['a string input', { [wrapper]: 'x' }],
              ['a list input', { [wrapper]: [base[wrapper]] }],
              ['an unknown field', { [wrapper]: { ...(base[wrapper] as Vars), nope: 1 } }],
            ] as Array<[string, Vars]>)
          : []),
      ];
      const problems: string[] = [];
      for (const [label, variables] of envelopes) {
        const answer = await post(JSON.stringify({ query: spec.document, variables }), spec.as);
        for (const p of problemsOf(answer, spec.name, { label, value: null }))
          problems.push(`${label}: ${p}`);
      }
      expect(problems).toEqual([]);
      expect(await fingerprint()).toEqual(before);
    });
  });

  describe('inline literals (parsed from the document, not coerced from variables)', () => {
    const cases: Array<[string, string, string]> = [
      [
        'a NUL escape in a string',
        'admin',
        'mutation { upsertSkill(input: { identifier: "nul-skill", name: "a\\u0000b", body: "b" }) { id } }',
      ],
      [
        'a NUL escape in a block string',
        'admin',
        'mutation { upsertSkill(input: { identifier: "nul-skill", name: "n", body: """a\u0000b""" }) { id } }',
      ],
      [
        'a NUL escape inside a JSON literal',
        'admin',
        'mutation { upsertConfiguration(input: { identifier: "nul-configuration", name: "n", provider: "scripted", model: "m", providerOptions: { rounds: [{ text: "a\\u0000b" }] } }) { id } }',
      ],
      [
        'a JSON literal 64 levels deep',
        'admin',
        `mutation { upsertConfiguration(input: { identifier: "deep-configuration", name: "n", provider: "scripted", model: "m", providerOptions: { rounds: [{ toolCalls: [{ name: "pages_read", arguments: ${'{ a: '.repeat(64)}1${' }'.repeat(64)} }] }] } }) { id } }`,
      ],
      [
        'an Int literal of 2^31',
        'admin',
        'mutation { upsertTask(input: { identifier: "big-task", name: "n", configurationIdentifier: "demo-editor", priority: 2147483648 }) { id } }',
      ],
      [
        'an Int literal of 2^53',
        'alice',
        'mutation { startRun(input: { configurationId: "1", prompt: "p", maxIterations: 9007199254740992 }) { id } }',
      ],
      [
        'an unknown enum literal',
        'admin',
        'mutation { upsertConfiguration(input: { identifier: "enum-configuration", name: "n", provider: "scripted", model: "m", privacyLevel: NOPE }) { id } }',
      ],
      [
        'a string literal for an enum',
        'admin',
        'mutation { upsertConfiguration(input: { identifier: "enum-configuration", name: "n", provider: "scripted", model: "m", privacyLevel: "FULL" }) { id } }',
      ],
      [
        'a string literal for an Int',
        'admin',
        'mutation { upsertTask(input: { identifier: "str-task", name: "n", configurationIdentifier: "demo-editor", priority: "1" }) { id } }',
      ],
      ['a float literal for an ID', 'alice', 'mutation { cancelRun(runId: 1.5) { id } }'],
      [
        'a missing required field',
        'admin',
        'mutation { upsertSkill(input: { identifier: "missing-skill", name: "n" }) { id } }',
      ],
      ['a missing required argument', 'admin', 'mutation { createApiToken(label: "l") { tokenId } }'],
    ];
    it.each(cases)('refuses %s', async (_label, as, query) => {
      const before = await fingerprint();
      const answer = await post(JSON.stringify({ query }), as);
      expect(problemsOf(answer, '', { label: '', value: null })).toEqual([]);
      expect(await fingerprint()).toEqual(before);
    });
  });

  describe('over-limit documents, interleaved with legitimate traffic', () => {
    const createUser = (i: number, selection = 'id'): string =>
      `createUser(input: { username: "limit-user-${i}" }) { ${selection} }`;
    const deep = `{ __type(name: "Query") { fields { type ${'{ ofType '.repeat(7)}{ name }${' }'.repeat(7)} } } }`;
    const costly = (() => {
      let inner = 'name';
      for (let i = 0; i < 7; i++) inner = `${'...T '.repeat(10)}ofType { ${inner} }`;
      return `{ __type(name: "Query") { ${inner} } } fragment T on __Type { name kind description specifiedByURL }`;
    })();
    const overLimit: Array<[string, string]> = [
      [
        '16 aliased createUser',
        `mutation { ${Array.from({ length: 16 }, (_, i) => `u${i}: ${createUser(i)}`).join(' ')} }`,
      ],
      ['a createUser of 2001 tokens', `mutation { ${createUser(20, 'id '.repeat(1990))} }`],
      [
        'a createUser with 51 directives',
        `mutation { ${createUser(21, Array.from({ length: 51 }, (_, i) => `f${i}: id @include(if: true)`).join(' '))} }`,
      ],
      ['a mutation beside a query 11 deep', `mutation { ${createUser(22)} } query Deep ${deep}`],
      ['a query 11 deep', deep],
      ['a query over the cost limit', costly],
      ['a syntax error after a createUser', `mutation { ${createUser(23)} `],
    ];
    const batch = JSON.stringify([
      { query: `mutation { ${createUser(24)} }` },
      { query: `mutation { ${createUser(25)} }` },
    ]);
    const viewer = JSON.stringify({ query: '{ viewer { user { username } } }' });

    it('refuses each (BAD_USER_INPUT or a document code) while concurrent legitimate queries keep answering', async () => {
      const before = await fingerprint();
      const [legit, refused] = await Promise.all([
        Promise.all(Array.from({ length: 16 }, () => post(viewer, 'bob'))),
        Promise.all([...overLimit.map(([, query]) => post(JSON.stringify({ query }))), post(batch)]),
      ]);
      for (const answer of legit) {
        expect(answer.status).toBe(200);
        expect(answer.body?.data).toEqual({ viewer: { user: { username: 'bob' } } });
      }
      const labels = [...overLimit.map(([label]) => label), 'a batch of two createUser'];
      const problems = refused.flatMap((answer, i) => [
        ...(answer.status === 400 ? [] : [`${labels[i]}: HTTP ${answer.status}`]),
        ...problemsOf(answer, 'createUser', { label: '', value: null }).map((p) => `${labels[i]}: ${p}`),
      ]);
      expect(problems).toEqual([]);
      expect(await fingerprint()).toEqual(before);
    });

    it('keeps a legitimate mutation working between over-limit ones', async () => {
      for (const [label, query] of overLimit) {
        const refused = await post(JSON.stringify({ query }));
        expect([label, refused.status]).toEqual([label, 400]);
        const skill = await post(
          JSON.stringify({
            query: 'mutation($i: SkillInput!) { upsertSkill(input: $i) { name } }',
            variables: { i: { identifier: 'interleaved', name: label, body: 'b' } },
          }),
        );
        expect(skill.body?.data).toEqual({ upsertSkill: { name: label } });
      }
      const rows = await t.dataSource.query<Array<{ name: string }>>(
        `SELECT name FROM skill WHERE identifier = 'interleaved'`,
      );
      expect(rows).toEqual([{ name: overLimit[overLimit.length - 1]![0] }]);
      const users = await t.dataSource.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM app_user WHERE username LIKE 'limit-user-%'`,
      );
      expect(users[0]!.n).toBe(0);
    });

    it('refuses the same over graphql-ws, and NUL or deep input there, on a connection that keeps serving', async () => {
      const client = t.ws('admin');
      const viewerQuery = '{ viewer { user { username } } }';
      const upsertSkill = 'mutation($i: SkillInput!) { upsertSkill(input: $i) { id } }';
      const deepOptions = {
        identifier: 'ws-deep',
        name: 'n',
        provider: 'scripted',
        model: 'm',
        providerOptions: scriptWith(nested(64, 'object')),
      };
      const before = await fingerprint();
      const hostile: Array<[string, string, Vars | undefined]> = [
        ...overLimit.map(([label, query]): [string, string, undefined] => [label, query, undefined]),
        ['a NUL in a variable', upsertSkill, { i: { identifier: 'ws-nul', name: NUL, body: 'b' } }],
        [
          'a NUL in a literal',
          'mutation { upsertSkill(input: { identifier: "ws-nul", name: "a\\u0000b", body: "b" }) { id } }',
          undefined,
        ],
        [
          'JSON 64 levels deep',
          'mutation($i: ConfigurationInput!) { upsertConfiguration(input: $i) { id } }',
          { i: deepOptions },
        ],
      ];
      const [legit, refused] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, () => overWs(client, viewerQuery))),
        Promise.all(hostile.map(([, query, variables]) => overWs(client, query, variables))),
      ]);
      for (const answer of legit)
        expect(answer).toEqual({ data: { viewer: { user: { username: 'admin' } } } });
      const problems = refused.flatMap((answer, i) => {
        const codes = answer.errors?.map((e) => e.extensions?.code) ?? [];
        return codes.length > 0 && codes.every((c) => REFUSED_INPUT.has(String(c)))
          ? []
          : [`${hostile[i]![0]}: ${JSON.stringify(answer)}`];
      });
      expect(problems).toEqual([]);
      expect(await fingerprint()).toEqual(before);
      expect(await overWs(client, viewerQuery)).toEqual({
        data: { viewer: { user: { username: 'admin' } } },
      });
    });
  });

  it('logged no error for any of these refusals', () => {
    expect(errorLog.mock.calls).toEqual([]);
  });

  describe('the valid baselines (so each refusal above came from the fuzzed value)', () => {
    it.each(MUTATIONS.map((m) => [m.name, m] as const))('accepts %s and writes', async (_name, spec) => {
      const before = await fingerprint();
      const answer = await post(JSON.stringify({ query: spec.document, variables: spec.base(f) }), spec.as);
      expect(answer.body?.errors).toBeUndefined();
      expect((answer.body?.data as Record<string, unknown>)[spec.name]).toBeTruthy();
      expect(await fingerprint()).not.toEqual(before);
    });
  });

  describe('logging', () => {
    let debugLog: jest.SpyInstance;
    beforeAll(async () => {
      // why: the baselines started turns and continuations; let them settle first.
      await until(
        async () => {
          const [moving] = await t.dataSource.query<Array<{ n: number }>>(
            `SELECT count(*)::int AS n FROM run WHERE status IN ('RUNNING', 'QUEUED', 'DECISION_RECORDED')`,
          );
          return moving!.n === 0;
        },
        20_000,
        'runs to settle',
      );
    });
    beforeEach(() => {
      errorLog.mockClear();
      debugLog = jest.spyOn(Logger.prototype, 'debug');
    });
    afterEach(() => debugLog.mockRestore());

    it('logs a refusal at debug level, with its code and without a stack', async () => {
      const answer = await post(
        JSON.stringify({
          query: 'mutation($id: ID!) { cancelRun(runId: $id) { id } }',
          variables: { id: '5b0c2a3e-9d1f-4c6b-8e2a-7f3d9c1b0a42' },
        }),
        'alice',
      );
      expect(answer.body?.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      expect(errorLog).not.toHaveBeenCalled();
      const refusals = debugLog.mock.calls.filter(
        ([first]) => (first as { code?: string })?.code === 'NOT_FOUND',
      );
      expect(refusals).toEqual([[{ code: 'NOT_FOUND', refusal: 'Run not found' }, 'refused']]);
      expect(JSON.stringify(refusals)).not.toMatch(/\bat .*\.ts:\d+/);
    });

    it('still logs a fault as an error', async () => {
      await t.dataSource.query('ALTER TABLE skill RENAME TO skill_hidden');
      try {
        const answer = await post(
          JSON.stringify({
            query: 'mutation { upsertSkill(input: { identifier: "gone", name: "n", body: "b" }) { id } }',
          }),
        );
        expect(answer.body?.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      } finally {
        await t.dataSource.query('ALTER TABLE skill_hidden RENAME TO skill');
      }
      expect(errorLog).toHaveBeenCalledWith(expect.objectContaining({ name: 'QueryFailedError' }));
      expect(await alive()).toBe(true);
    });
  });
});
