#!/usr/bin/env node
// `npm run schema:diff`: the schema the code declares (schema.gql, kept in step by
// `npm run schema:check`) against the released baseline (docs/api/schema.released.gql), with
// @graphql-inspector/core, the differ client teams run on their side too. Prints breaking,
// dangerous and safe changes; exits 1 on any breaking one. A deliberate break moves the
// baseline in the same commit: `npm run schema:release`.
//   node scripts/schema-diff.js [--base FILE] [--schema FILE]
'use strict';
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const { buildSchema } = require('graphql');
const { diff, CriticalityLevel } = require('@graphql-inspector/core');

const ROOT = join(__dirname, '..');
const argument = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
};
const baseFile = argument('--base', join(ROOT, 'docs', 'api', 'schema.released.gql'));
const schemaFile = argument('--schema', join(ROOT, 'schema.gql'));

const GROUPS = [
  [CriticalityLevel.Breaking, 'breaking'],
  [CriticalityLevel.Dangerous, 'dangerous'],
  [CriticalityLevel.NonBreaking, 'safe'],
];

async function main() {
  const load = (file) => buildSchema(readFileSync(file, 'utf8'));
  const changes = await diff(load(baseFile), load(schemaFile));
  const name = (file) => relative(process.cwd(), file) || file;
  console.log(`schema: ${name(schemaFile)} against the released ${name(baseFile)}`);
  for (const [level, label] of GROUPS) {
    const found = changes.filter((c) => c.criticality.level === level);
    console.log(`${label}: ${found.length}`);
    for (const c of found) console.log(`  ${label.toUpperCase()} ${c.path ?? ''}: ${c.message}`);
  }
  const breaking = changes.filter((c) => c.criticality.level === CriticalityLevel.Breaking);
  if (breaking.length > 0) {
    console.log(
      `\n${breaking.length} breaking change(s). If the break is deliberate, move the baseline in the ` +
        'same commit with `npm run schema:release` and say so in the commit message.',
    );
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
