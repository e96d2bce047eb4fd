// The hostile values of the fuzz (test/e2e/hostile-input-*.e2e-spec.ts), by the kind of an
// argument: wrong types, missing and null values, empty, over-long and 1 MB strings, NUL bytes,
// malformed and unknown ids, unknown enum values, out-of-range integers (2^31, 2^53), JSON 64
// levels deep or over 64 KB; and how a case puts its value into a mutation's baseline variables.
import type { ArgSpec, Kind, MutationSpec, Vars } from './hostile-input-args';

/** A value the case leaves out of the variables altogether. */
const MISSING = Symbol('missing');

export interface Case {
  readonly label: string;
  readonly value: unknown;
  /** The body limit answers before GraphQL does. */
  readonly tooLarge?: boolean;
  /** Codes besides BAD_USER_INPUT this case may be refused with. */
  readonly codes?: readonly string[];
}

const MB = 1024 * 1024;
const INT32 = 2 ** 31;
export const NUL = 'a\u0000b';

/** JSON text sent as it is: the client's own JSON.stringify would overflow its stack on it. */
class RawJson {
  constructor(readonly text: string) {}
}

/** A request body; RawJson values are spliced in as their text. */
export function bodyOf(payload: unknown): string {
  const raws: RawJson[] = [];
  const text = JSON.stringify(payload, (_key, value: unknown) => {
    if (!(value instanceof RawJson)) return value;
    raws.push(value);
    return `__raw_json_${raws.length - 1}__`;
  });
  return raws.reduce((out, raw, i) => out.replace(`"__raw_json_${i}__"`, () => raw.text), text);
}

/** `{ a: { a: ... } }` or `[[ ... ]]` nested `depth` levels deep. */
export function nested(depth: number, kind: 'object' | 'array'): unknown {
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
export function casesOf(arg: ArgSpec): Case[] {
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
export function withArg(spec: MutationSpec, base: Vars, arg: string, value: unknown): Vars {
  const vars = structuredClone(base);
  const [holder, key] = holderOf(spec, vars, arg);
  if (value === MISSING) delete holder[key];
  else holder[key] = value;
  return vars;
}

/** A list argument with one item more than it takes, from the baseline's first item. */
export function overFull(spec: MutationSpec, base: Vars, arg: ArgSpec): Case | null {
  if (arg.maxItems === undefined) return null;
  const [holder, key] = holderOf(spec, base, arg.name);
  const first = (holder[key] as unknown[])[0];
  return { label: `${arg.maxItems + 1} items`, value: Array<unknown>(arg.maxItems + 1).fill(first) };
}
