#!/usr/bin/env node
// `countersign <command>` (also `npx countersign`, `npm run cli --`): runs the compiled CLI in
// dist/ and compiles the server first only when a source file is newer than its compiled file.
// why: a full `npm run build` (tsc and the web client) on every call took half a minute; a
// command on a fresh build answers in well under a second.
'use strict';
const { spawnSync } = require('node:child_process');
const { readdirSync, statSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
const DIST = join(ROOT, 'dist');
/** The folders the CLI's code comes from (bench is compiled too but the CLI never loads it). */
const SOURCES = ['src', 'migrations'];
// why: tsc's incremental build skips a file whose text is unchanged, however new its mtime,
// so a successful build here also leaves this stamp, which counts as "compiled at" for all.
const STAMP = join(DIST, '.countersign-built');

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/** The first source whose compiled .js is missing or older than it, or null when all are fresh. */
function staleSource(dir, builtAt) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const stale = staleSource(path, builtAt);
      if (stale) return stale;
    } else if (/\.ts$/.test(entry.name) && !/\.(spec|d)\.ts$/.test(entry.name)) {
      const out = join(DIST, relative(ROOT, path)).replace(/\.ts$/, '.js');
      const outAt = mtime(out);
      if (outAt < 0 || Math.max(outAt, builtAt) < mtime(path)) return path;
    }
  }
  return null;
}

function build(reason) {
  process.stderr.write(`countersign: ${reason} changed; compiling the server (tsc)...\n`);
  const tsc = spawnSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (tsc.status !== 0) {
    process.stderr.write('countersign: the build failed (see above); fix it or run `npm run build`.\n');
    process.exit(1);
  }
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

const builtAt = mtime(STAMP);
const stale = SOURCES.map((dir) => staleSource(join(ROOT, dir), builtAt)).find((s) => s !== null);
if (stale) build(relative(ROOT, stale));
require(join(DIST, 'src', 'cli.js'));
