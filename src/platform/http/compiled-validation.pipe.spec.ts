import 'reflect-metadata';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { plainToInstance, Type } from 'class-transformer';
import {
  IsDate,
  IsInt,
  Max,
  Min,
  IsOptional,
  IsString,
  Matches,
  MinLength,
  ValidateNested,
  getMetadataStorage,
} from 'class-validator';
import {
  ApproveRunInput,
  DenyRunInput,
  SubmitRunInputInput,
} from '../../modules/approvals/graphql/decision.model';
import { API_VALIDATION, CompiledValidationPipe, type InputClass } from './compiled-validation.pipe';

/** Every class of the API with class-validator rules (the GraphQL inputs of every module). */
function apiInputClasses(): InputClass[] {
  const modules = join(__dirname, '../../modules');
  for (const module of readdirSync(modules)) {
    const graphql = join(modules, module, 'graphql');
    if (!existsSync(graphql)) continue;
    const files = readdirSync(graphql).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    for (const file of files) require(join(graphql, file));
  }
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<InputClass, unknown[]> };
  return [...storage.validationMetadatas.keys()].filter((c) => typeof c === 'function');
}

const UUID = '29b440ff-3aeb-412d-8780-47c11a8f215e';
/** Values that sit on the edges of the rules: lengths, code points, types, numbers, enums. */
const EDGES: unknown[] = [
  undefined,
  null,
  '',
  'a',
  ' ',
  'a\uFE0F',
  '\uFE0F',
  '😀',
  '😀'.repeat(100),
  'x'.repeat(128),
  'x'.repeat(129),
  'x'.repeat(200),
  'x'.repeat(201),
  'é'.repeat(64),
  UUID,
  UUID.toUpperCase(),
  `${UUID}\n`,
  'not-a-uuid-but-36-characters-long-xx',
  'INLINE',
  'DURABLE',
  'VARIANT',
  'SKIP',
  'inline',
  0,
  -1,
  1,
  1.5,
  50,
  100,
  101,
  1000,
  2 ** 31,
  Number.NaN,
  true,
  false,
  [],
  ['a'],
  {},
];

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

function propertiesOf(cls: InputClass): string[] {
  const rules = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  return [...new Set(rules.map((r) => r.propertyName))];
}

/** Random values of a class' shape built from EDGES, with an unknown key now and then. */
function corpus(cls: InputClass, count: number): Record<string, unknown>[] {
  const random = seeded(propertiesOf(cls).length * 7919 + count);
  const props = propertiesOf(cls);
  const values: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const value: Record<string, unknown> = {};
    for (const p of props) {
      const pick = EDGES[Math.floor(random() * EDGES.length)];
      if (pick !== undefined || random() < 0.5) value[p] = pick;
    }
    if (random() < 0.1) value.unknownKey = 'x';
    values.push(value);
  }
  return values;
}

const body = (metatype: InputClass): ArgumentMetadata => ({ type: 'body', metatype, data: 'input' });

async function outcome(pipe: ValidationPipe, value: unknown, metatype: InputClass): Promise<unknown> {
  try {
    return { ok: await pipe.transform(structuredClone(value), body(metatype)) };
  } catch (e) {
    return { refused: (e as { getResponse?: () => unknown }).getResponse?.() ?? String(e) };
  }
}

describe('CompiledValidationPipe', () => {
  const compiled = new CompiledValidationPipe(API_VALIDATION);
  const stock = new ValidationPipe(API_VALIDATION);

  it('compiles the decision inputs, and no class with free-form JSON values', () => {
    expect(compiled.checkFor(ApproveRunInput)).not.toBeNull();
    expect(compiled.checkFor(DenyRunInput)).not.toBeNull();
    // `values` has no rule of its own: the compiled check refuses it, the stock pipe decides.
    const check = compiled.checkFor(SubmitRunInputInput)!;
    expect(check({ runId: UUID, turnDigest: 'd', values: { a: 1 } })).toBe(false);
  });

  it('leaves to class-validator every class with a rule that would compile looser', () => {
    class LongerName {
      @IsString() @MinLength(2) name!: string;
    }
    class Flagged {
      @Matches(/^abc$/i) code!: string;
    }
    class PatternString {
      @Matches('^abc$') code!: string;
    }
    class Dated {
      @IsDate() at!: Date;
    }
    class Inner {
      @IsString() x!: string;
    }
    class Nested {
      @ValidateNested() @Type(() => Inner) inner!: Inner;
    }
    class Each {
      @IsOptional() @IsString({ each: true }) tags?: string[];
    }
    for (const cls of [LongerName, Flagged, PatternString, Dated, Nested, Each])
      expect(compiled.checkFor(cls)).toBeNull();
  });

  it('keeps every rule of a property whatever the order of its decorators', async () => {
    class BoundsFirst {
      @IsOptional() @Min(0) @Max(10) @IsInt() n?: number;
    }
    class TypeFirst {
      @IsOptional() @IsInt() @Min(0) @Max(10) n?: number;
    }
    for (const cls of [BoundsFirst, TypeFirst]) {
      const check = compiled.checkFor(cls)!;
      expect(check(Object.assign(new cls(), { n: 3 }))).toBe(true);
      expect(check(Object.assign(new cls(), { n: 1.5 }))).toBe(false);
      expect(check(Object.assign(new cls(), { n: 11 }))).toBe(false);
      expect(check(Object.assign(new cls(), { n: null }))).toBe(true);
      expect(await outcome(compiled, { n: 1.5 }, cls)).toEqual(await outcome(stock, { n: 1.5 }, cls));
    }
  });

  it('refuses what class-validator refuses where a compiled length would not (a character and its variation selector)', async () => {
    class LongerName {
      @IsString() @MinLength(2) name!: string;
    }
    // validator.js counts "a" + VS16 as one character; a JSON Schema minLength would count two.
    const ours = await outcome(compiled, { name: 'a\uFE0F' }, LongerName);
    expect(ours).toEqual(await outcome(stock, { name: 'a\uFE0F' }, LongerName));
    expect(ours).toHaveProperty('refused');
  });

  it('answers like the stock pipe on every input class of the API, and accepts only what class-validator accepts', async () => {
    const classes = apiInputClasses();
    expect(classes.length).toBeGreaterThan(20);
    let compiledClasses = 0;
    let fastAccepted = 0;
    for (const cls of classes) {
      const check = compiled.checkFor(cls);
      if (check) compiledClasses++;
      for (const value of corpus(cls, 150)) {
        const [ours, theirs] = [await outcome(compiled, value, cls), await outcome(stock, value, cls)];
        expect({ cls: cls.name, value, outcome: ours }).toStrictEqual({
          cls: cls.name,
          value,
          outcome: theirs,
        });
        if (check?.(plainToInstance(cls, structuredClone(value)))) fastAccepted++;
      }
    }
    // The comparison above must have exercised the compiled path, not only the stock one.
    expect(compiledClasses).toBeGreaterThanOrEqual(5);
    expect(fastAccepted).toBeGreaterThan(50);
  });

  it('hands on the same instance the stock pipe does for a valid decision', async () => {
    const input = { runId: UUID, turnDigest: 'abc', idempotencyKey: 'k-1', path: 'INLINE' };
    const ours = await compiled.transform({ ...input }, body(ApproveRunInput));
    expect(ours).toBeInstanceOf(ApproveRunInput);
    expect(ours).toStrictEqual(await stock.transform({ ...input }, body(ApproveRunInput)));
    expect(compiled.checkFor(ApproveRunInput)!(ours)).toBe(true);
  });
});
