// The schema is the project's contract with its clients: the schema the booted application
// serves against the released baseline (docs/api/schema.released.gql), through the same
// `npm run schema:diff` script CI runs (@graphql-inspector/core underneath).
import { GraphQLSchemaHost } from '@nestjs/graphql';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { GraphQLEnumType, printSchema } from 'graphql';
import { ERROR_CODES } from '../../src/common/error-codes';
import { useTestApp } from '../support/suite';

const ROOT = resolve(__dirname, '..', '..');
const DIFF = join(ROOT, 'scripts', 'schema-diff.js');
const BASELINE = join(ROOT, 'docs', 'api', 'schema.released.gql');

async function schemaDiff(base: string, schema: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)('node', [DIFF, '--base', base, '--schema', schema], {
      cwd: ROOT,
    });
    return { code: 0, output: stdout };
  } catch (e) {
    const failed = e as { code?: number; stdout?: string };
    return { code: failed.code ?? -1, output: failed.stdout ?? String(e) };
  }
}

describe('the schema against its released baseline', () => {
  const { t } = useTestApp();
  let dir: string;
  let served: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cs-schema-'));
    served = join(dir, 'served.gql');
    writeFileSync(served, printSchema(t.app.get(GraphQLSchemaHost).schema));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has no breaking change against the released baseline', async () => {
    const { code, output } = await schemaDiff(BASELINE, served);
    expect(output).toMatch(/^breaking: 0$/m);
    expect(code).toBe(0);
  });

  it('fails on a removed field and names it', async () => {
    const base = join(dir, 'with-extra.gql');
    // A baseline that still had a field the code no longer serves.
    const baseline = readFileSync(BASELINE, 'utf8').replace(
      /type Language \{\n/,
      'type Language {\n  retiredCode: String!\n',
    );
    expect(baseline).toContain('retiredCode');
    writeFileSync(base, baseline);
    const { code, output } = await schemaDiff(base, served);
    expect(code).toBe(1);
    expect(output).toMatch(/^breaking: 1$/m);
    expect(output).toContain("Field 'retiredCode' was removed from object type 'Language'");
  });

  it('tells safe additions apart from breaks', async () => {
    const base = join(dir, 'without-title.gql');
    writeFileSync(
      base,
      readFileSync(BASELINE, 'utf8').replace(/(type Language \{[^}]*?)\n {2}title: String!/, '$1'),
    );
    const { code, output } = await schemaDiff(base, served);
    expect(code).toBe(0);
    expect(output).toMatch(/^breaking: 0$/m);
    expect(output).toMatch(/^ {2}SAFE Language\.title: Field 'title' was added to object type 'Language'$/m);
  });

  it('emits the ErrorCode enum with exactly the registry values', () => {
    const type = t.app.get(GraphQLSchemaHost).schema.getType('ErrorCode');
    expect(type).toBeInstanceOf(GraphQLEnumType);
    const values = (type as GraphQLEnumType).getValues().map((v) => v.name);
    expect([...values].sort()).toEqual([...ERROR_CODES].sort());
  });
});
