#!/usr/bin/env node
// `npm test`: every tier. Unit tests in parallel; integration, e2e and browser files on two
// workers (each file gets its own database). Measured on 2 cores against PostgreSQL: 898 s
// one file at a time, 619 s on two workers, every file passing in both; many files spend their
// time waiting (leases expiring, child processes booting, the embedded database opening), which
// the second worker fills.
// why workers, not --runInBand: in band, every file runs in jest's own process and each file's
// whole module world (Nest, Apollo, TypeORM) stays reachable after it: the heap grew by about
// 100 MB a file, and past 60 files a two-test suite spent 35-40 s in garbage collection instead
// of 5. A worker is replaced once it holds more than workerIdleMemoryLimit (jest.config.js)
// after a file, so the heap stays small.
'use strict';
const { spawnSync } = require('node:child_process');
const jest = require.resolve('jest/bin/jest');
const extra = process.argv.slice(2);
const db = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite';
console.log(`countersign tests against ${db}`);
const runs = [
  ['--selectProjects', 'unit'],
  ['--selectProjects', 'integration', 'e2e', 'browser', '--maxWorkers=2'],
];
for (const args of runs) {
  const r = spawnSync(process.execPath, [jest, ...args, ...extra], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
