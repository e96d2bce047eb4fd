import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/** One node of a V8 CPU profile (`Profiler.stop`), as written to a .cpuprofile file. */
interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

/** One line of a profile's top: a function (or a package), its self and inclusive share. */
export interface ProfileEntry {
  readonly name: string;
  readonly selfPct: number;
  readonly totalPct: number;
}

/**
 * Profiles this process (app and bench client alike: P0 boots the app in-process, as every
 * decision scenario does) with the inspector's sampling profiler while `work` runs.
 */
export async function profile(work: () => Promise<void>, intervalUs = 200): Promise<CpuProfile> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await session.post('Profiler.start');
    let stopped: unknown = null;
    try {
      await work();
    } finally {
      // why: the profiler is stopped even when the work failed, or the session keeps sampling.
      stopped = (await session.post('Profiler.stop')).profile;
    }
    return stopped as CpuProfile;
  } finally {
    session.disconnect();
  }
}

/** `pkg` for a file under node_modules (scoped packages kept whole), `app` for the project, else `node`. */
export function ownerOf(url: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.includes('/dist/src/')) return 'app (src)';
  if (url.includes('/dist/bench/')) return 'bench client';
  return url === '' ? '(native/V8)' : 'node';
}

function label(node: ProfileNode): string {
  const f = node.callFrame;
  const name = f.functionName || '(anonymous)';
  if (!f.url) return name;
  const file = f.url
    .replace(/^.*node_modules\//, '')
    .replace(/^.*\/dist\//, '')
    .replace(/^file:\/\//, '');
  return `${name} ${file}:${f.lineNumber + 1}`;
}

/**
 * The top of a profile by self time and by inclusive time, per function and per package.
 * Inclusive time counts a sample once per function on its stack (recursion not double-counted).
 * `(idle)` samples are left out of the percentages: the share is of the CPU the process used.
 */
export function topOf(p: CpuProfile, count = 12) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const pkgSelf = new Map<string, number>();
  const pkgTotal = new Map<string, number>();
  let busy = 0;
  for (const id of p.samples) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    busy++;
    const key = label(node);
    self.set(key, (self.get(key) ?? 0) + 1);
    const pkg = ownerOf(node.callFrame.url);
    pkgSelf.set(pkg, (pkgSelf.get(pkg) ?? 0) + 1);
    const seen = new Set<string>();
    const seenPkg = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!;
      const k = label(n);
      if (!seen.has(k)) {
        seen.add(k);
        total.set(k, (total.get(k) ?? 0) + 1);
      }
      const owner = ownerOf(n.callFrame.url);
      if (n.callFrame.url && !seenPkg.has(owner)) {
        seenPkg.add(owner);
        pkgTotal.set(owner, (pkgTotal.get(owner) ?? 0) + 1);
      }
    }
  }
  const pct = (n: number): number => (busy > 0 ? (100 * n) / busy : 0);
  const rank = (
    by: Map<string, number>,
    selfOf: Map<string, number>,
    totalOf: Map<string, number>,
    skip: (k: string) => boolean,
  ): ProfileEntry[] =>
    [...by.entries()]
      .filter(([k]) => !skip(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name]) => ({
        name,
        selfPct: pct(selfOf.get(name) ?? 0),
        totalPct: pct(totalOf.get(name) ?? 0),
      }));
  // why: the roots ((root), (program), the event loop's entry points) are on every stack.
  const structural = (k: string) =>
    /^\((root|program)\)/.test(k) ||
    k.startsWith('processTicksAndRejections') ||
    k.startsWith('listOnTimeout');
  return {
    busySamples: busy,
    totalSamples: p.samples.length,
    bySelf: rank(self, self, total, () => false),
    byTotal: rank(total, self, total, structural),
    packagesBySelf: rank(pkgSelf, pkgSelf, pkgTotal, () => false),
  };
}

/**
 * Writes a scenario's profile to bench/results/<id>[-quick].cpuprofile and prints its top
 * (inclusive, then packages by self time) under `what`.
 */
export function reportProfile(id: string, quick: boolean, what: string, cpuProfile: CpuProfile): string {
  const file = join(
    __dirname,
    '..',
    '..',
    '..',
    'bench',
    'results',
    `${id}${quick ? '-quick' : ''}.cpuprofile`,
  );
  writeFileSync(file, JSON.stringify(cpuProfile));
  const top = topOf(cpuProfile, 25);
  console.log(`  profile of ${what}: ${file}`);
  for (const e of top.byTotal)
    console.log(`    total ${e.totalPct.toFixed(1)}% self ${e.selfPct.toFixed(1)}%  ${e.name}`);
  for (const e of top.packagesBySelf)
    console.log(`    package self ${e.selfPct.toFixed(1)}% total ${e.totalPct.toFixed(1)}%  ${e.name}`);
  return file;
}
