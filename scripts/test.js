#!/usr/bin/env node
// `npm test`: every tier. Unit tests in parallel; integration and e2e one file at a time
// (each file gets its own database, but two cores are better spent on one app at a time).
'use strict';
const { spawnSync } = require('node:child_process');
const jest = require.resolve('jest/bin/jest');
const extra = process.argv.slice(2);
const db = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite';
console.log(`countersign tests against ${db}`);
const runs = [
  ['--selectProjects', 'unit'],
  ['--selectProjects', 'integration', 'e2e', 'browser', '--runInBand'],
];
for (const args of runs) {
  const r = spawnSync(process.execPath, [jest, ...args, ...extra], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
