// The arguments of the hostile-input fuzz (test/e2e/hostile-input-*.e2e-spec.ts): what a mutation
// of schema.gql and each of its arguments look like to the fuzzer, and the argument specs that
// several mutations share. The table of mutations is hostile-input-mutations.ts.
import type { DemoIds } from './runs';

export type Vars = Record<string, unknown>;
export type Kind =
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
export interface ArgSpec {
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

export interface Fixture {
  ids: DemoIds;
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

export interface Waiting {
  id: string;
  digest: string;
}

/** One mutation of schema.gql: its document, who sends it, its arguments and a valid baseline. */
export interface MutationSpec {
  readonly name: string;
  readonly as: string;
  readonly document: string;
  /** The variable holding the input object; null where the arguments are root variables. */
  readonly inputVar: string | null;
  readonly args: readonly ArgSpec[];
  readonly base: (f: Fixture) => Vars;
}

export const RECEIPT = 'path decision { id } run { id status }';
export const inputMutation = (name: string, type: string, selection: string): string =>
  `mutation Fuzz($input: ${type}!) { ${name}(input: $input) { ${selection} } }`;

export const RUN_ID: ArgSpec = {
  name: 'runId',
  kind: 'uuid',
  required: true,
  unknown: '5b0c2a3e-9d1f-4c6b-8e2a-7f3d9c1b0a42',
  alsoCodes: ['NOT_FOUND'],
};
export const DECISION_ARGS: readonly ArgSpec[] = [
  RUN_ID,
  { name: 'turnDigest', kind: 'string', required: true, nonEmpty: true, max: 128 },
  { name: 'idempotencyKey', kind: 'string', nonEmpty: true, max: 200 },
  { name: 'path', kind: 'enum', unknown: 'inline' },
];
export const decisionBase = (run: Waiting, key: string): Vars => ({
  input: { runId: run.id, turnDigest: run.digest, idempotencyKey: key, path: 'INLINE' },
});

export const CONVERSATION_ID: ArgSpec = {
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

/** A catalogue entry's upsert (configuration, Task, skill): an admin's, by identifier and name. */
export const catalogueUpsert = (
  name: string,
  type: string,
  args: readonly ArgSpec[],
): Omit<MutationSpec, 'base'> => ({
  name,
  as: 'admin',
  document: inputMutation(name, type, 'id identifier'),
  inputVar: 'input',
  args: [
    { name: 'identifier', ...IDENTIFIER },
    { name: 'name', kind: 'string', required: true, nonEmpty: true, max: 200 },
    ...args,
  ],
});

/** A scripted provider script whose tool arguments take any JSON object. */
export const scriptWith = (args: unknown): unknown => ({
  rounds: [{ text: 'fuzz', toolCalls: [{ name: 'pages_read', arguments: args }] }],
});
