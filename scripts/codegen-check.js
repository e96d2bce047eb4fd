#!/usr/bin/env node
// `npm run codegen:check` (and the `codegen` task of `npm run check`): regenerates the typed
// client files from schema.gql and the documents, then fails if they differ from the committed
// ones, so a schema or operation change without `npm run codegen` cannot pass CI.
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const GENERATED = ['web/src/api/generated.ts', 'test/support/generated'];

// why: a path, not require.resolve: the package's exports hide its bin.
const codegen = spawnSync(
  process.execPath,
  [
    join(ROOT, 'node_modules', '@graphql-codegen', 'cli', 'cjs', 'bin.js'),
    '--config',
    'codegen.yml',
    '--silent',
  ],
  { cwd: ROOT, encoding: 'utf8' },
);
if (codegen.status !== 0) {
  process.stderr.write(`graphql-codegen failed:\n${codegen.stdout}${codegen.stderr}`);
  process.exit(1);
}
const diff = spawnSync('git', ['diff', '--exit-code', '--stat', '--', ...GENERATED], {
  cwd: ROOT,
  encoding: 'utf8',
});
const untracked = spawnSync('git', ['ls-files', '--others', '--exclude-standard', '--', ...GENERATED], {
  cwd: ROOT,
  encoding: 'utf8',
});
if (diff.status !== 0 || untracked.stdout.trim() !== '') {
  process.stderr.write(
    `The generated client types are out of date (or not committed):\n${diff.stdout}${untracked.stdout}` +
      'Run `npm run codegen` and commit the result.\n',
  );
  process.exit(1);
}
