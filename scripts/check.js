#!/usr/bin/env node
// `npm run check`: generated-types drift, formatting, lint, layer rules and types, side by side (they share nothing)
// and with caches under node_modules/.cache, so a second run only looks at what changed.
'use strict';
const { spawn } = require('node:child_process');
const cache = 'node_modules/.cache/countersign';
const { join } = require('node:path');
// why: not require.resolve: eslint's package exports hide its bin.
const bin = (pkg, path) => join(__dirname, '..', 'node_modules', pkg, path);
const tasks = [
  // first: it rewrites the generated client types (identical unless they drifted) that tsc reads
  ['codegen', join(__dirname, 'codegen-check.js'), []],
  ['format', bin('prettier', 'bin/prettier.cjs'), ['--check', '--cache', '--log-level', 'warn', '.']],
  [
    'eslint',
    bin('eslint', 'bin/eslint.js'),
    ['--max-warnings', '0', '--cache', '--cache-location', `${cache}/eslint`, '.'],
  ],
  [
    'layers',
    bin('dependency-cruiser', 'bin/dependency-cruise.mjs'),
    ['--config', '.dependency-cruiser.js', 'src'],
  ],
  [
    'types',
    bin('typescript', 'bin/tsc'),
    ['--noEmit', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', `${cache}/tsc-app.tsbuildinfo`],
  ],
  [
    'types (web)',
    bin('typescript', 'bin/tsc'),
    [
      '--noEmit',
      '-p',
      'web/tsconfig.json',
      '--incremental',
      '--tsBuildInfoFile',
      `${cache}/tsc-web.tsbuildinfo`,
    ],
  ],
];
const started = Date.now();
const run = ([name, script, args]) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ name, code, out }));
  });
Promise.all(tasks.map(run)).then((results) => {
  for (const r of results) {
    const text = r.out.trim();
    console.log(`${r.code === 0 ? 'ok  ' : 'FAIL'} ${r.name}${text ? `\n${text}` : ''}`);
  }
  console.log(`check: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
});
