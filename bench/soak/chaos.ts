import type { Client } from 'pg';
import { sleep } from '../support/stats';
import { GqlWsConnection } from '../support/ws-subscriber';
import { RUN_PROGRESS } from '../support/decisions';
import { send } from './client';
import type { Cluster, Member } from './cluster';
import { setConfigurationActive } from './facts';
import type { History, Operation, RequestEntry } from './history';
import type { Random } from './random';

/** Configurations the soak starts, with their weights (soak-multi is the soak's own, below). */
const CONFIGURATIONS: ReadonlyArray<readonly [string, number]> = [
  ['demo-editor', 3],
  ['demo-question', 2],
  ['demo-four-eyes', 2],
  ['soak-multi', 3],
  // deadlines and quorums (docs/decisions.md): runs that expire, runs that need two approvers
  ['soak-deadline', 1.5],
  ['soak-quorum', 1.5],
];
/** The configuration the soak switches off now and then (its own: the demo's stay as they are). */
export const FLICKERED = 'soak-multi';
/** Workspaces shared by several runs: a write there changes the others' previews (a new turn). */
const SHARED_WORKSPACES = [900_001, 900_002, 900_003];
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const OWNERS = ['alice', 'carol'];
/** Deciders: the owner, an editor-approver, an approver, an admin; dave may not see the run. */
const DECIDERS: ReadonlyArray<readonly [string, number]> = [
  ['owner', 3],
  ['carol', 3],
  ['bob', 3],
  ['admin', 2],
  ['dave', 0.3],
];

/** A run the soak started, as far as the actors know it. */
export interface TrackedRun {
  readonly id: string;
  readonly configuration: string;
  readonly owner: string;
  /** Digest of each turn seen (turn -> digest): stale digests are earlier ones. */
  readonly digests: Map<number, string>;
}

/** What the actors share. */
export interface Stage {
  readonly history: History;
  readonly cluster: Cluster;
  readonly tokens: Readonly<Record<string, string>>;
  /** Configuration id by identifier. */
  readonly configurations: Readonly<Record<string, string>>;
  /** Demo page ids a run may be about. */
  readonly pages: readonly string[];
  /** Date.now() at which the chaos stops. */
  readonly until: number;
  readonly active: TrackedRun[];
  /** Decisions sent with an idempotency key (replayed later, same or changed). */
  readonly keyed: Array<{ op: Operation; user: string; runId: string; input: Record<string, unknown> }>;
  readonly stats: { churnSubscriptions: number; churnErrors: number; nextWorkspace: number };
}

interface Actor {
  readonly stage: Stage;
  readonly lane: number;
  readonly random: Random;
}

type Command = { readonly op: Operation; readonly user: string; readonly input: Record<string, unknown> };

function target(a: Actor): Member {
  return a.random.pick(a.stage.cluster.apis());
}

function request(
  a: Actor,
  op: Operation,
  user: string,
  variables: Record<string, unknown>,
  meta: { runId: string | null; intent: string; group?: string | null; stale?: boolean },
): Promise<RequestEntry> {
  return send(a.stage.history, target(a), a.stage.tokens[user]!, op, variables, {
    lane: a.lane,
    user,
    ...meta,
  });
}

/** startRun of a random configuration, owner, subject page, language and workspace. */
async function start(a: Actor): Promise<void> {
  const { stage, random } = a;
  const configuration = random.weighted(CONFIGURATIONS);
  const owner = random.pick(OWNERS);
  const workspaceId = random.chance(0.2) ? random.pick(SHARED_WORKSPACES) : stage.stats.nextWorkspace++;
  const input = {
    configurationId: stage.configurations[configuration],
    prompt: `soak lane ${a.lane}`,
    subjectPageId: random.pick(stage.pages),
    subjectLanguageId: random.int(0, 1),
    workspaceId,
  };
  const answer = await request(a, 'startRun', owner, { input }, { runId: null, intent: 'start' });
  if (answer.runId) stage.active.push({ id: answer.runId, configuration, owner, digests: new Map() });
}

/** Reads a run as an admin; drops it from the active pool once it has ended. */
async function read(a: Actor, run: TrackedRun): Promise<RequestEntry> {
  const seen = await request(a, 'readRun', 'admin', { id: run.id }, { runId: run.id, intent: 'read' });
  if (seen.pending) run.digests.set(seen.pending.turn, seen.pending.digest);
  if (seen.runStatus && TERMINAL.has(seen.runStatus)) {
    const i = a.stage.active.indexOf(run);
    if (i >= 0) a.stage.active.splice(i, 1);
  }
  return seen;
}

function decider(a: Actor, run: TrackedRun, exclude: ReadonlySet<string> = new Set()): string {
  const choices = DECIDERS.map(([who, w]) => [who === 'owner' ? run.owner : who, w] as const).filter(
    ([who]) => !exclude.has(who),
  );
  return a.random.weighted(choices.length > 0 ? choices : [[run.owner, 1]]);
}

/** One decision on the pending turn: approve or deny an approval, submit an input. */
function command(a: Actor, run: TrackedRun, kind: string, digest: string, user: string): Command {
  const { random } = a;
  const base: Record<string, unknown> = { runId: run.id, turnDigest: digest };
  const path = random.weighted([
    [null, 2],
    ['INLINE', 1],
    ['DURABLE', 1],
  ] as const);
  if (path) base.path = path;
  if (random.chance(0.4)) base.idempotencyKey = `soak-${random.hex(12)}`;
  if (kind === 'INPUT') {
    const values = random.chance(0.08) ? { tone: 'rude' } : { tone: random.pick(['formal', 'casual']) };
    return { op: 'submitRunInput', user, input: { ...base, values } };
  }
  if (random.chance(0.65)) return { op: 'approveRun', user, input: base };
  const reason = random.pick([null, 'VARIANT', 'SKIP']);
  return { op: 'denyRun', user, input: reason ? { ...base, reason } : base };
}

async function sendDecision(
  a: Actor,
  c: Command,
  meta: { intent: string; group?: string | null; stale?: boolean },
): Promise<RequestEntry> {
  const answer = await request(
    a,
    c.op,
    c.user,
    { input: c.input },
    { runId: c.input.runId as string, ...meta },
  );
  if (answer.receipt && typeof c.input.idempotencyKey === 'string') {
    a.stage.keyed.push({ op: c.op, user: c.user, runId: c.input.runId as string, input: c.input });
    if (a.stage.keyed.length > 200) a.stage.keyed.shift();
  }
  return answer;
}

/**
 * A stale digest: an earlier turn's where one was seen, else the current one with a changed
 * digit, or one made up. Only a made-up one can never be right: in a shared workspace a later
 * turn may propose exactly what an earlier one did (the same digest).
 */
function staleDigest(
  a: Actor,
  run: TrackedRun,
  turn: number,
  digest: string,
): { digest: string; madeUp: boolean } {
  const earlier = [...run.digests.entries()].filter(([t, d]) => t < turn && d !== digest);
  if (earlier.length > 0 && a.random.chance(0.6)) return { digest: a.random.pick(earlier)[1], madeUp: false };
  if (a.random.chance(0.3)) return { digest: a.random.hex(64), madeUp: true };
  const last = digest.at(-1) === '0' ? '1' : '0';
  return { digest: digest.slice(0, -1) + last, madeUp: true };
}

type Style = 'single' | 'double' | 'concurrent' | 'stale' | 'delayed';

/** Reads a run, then decides it in one of several ways. */
async function decide(a: Actor): Promise<void> {
  const { stage, random } = a;
  if (stage.active.length === 0) return;
  const run = random.pick(stage.active);
  const seen = await read(a, run);
  if (!seen.pending) {
    // why: a decision on a run that is not waiting (moving, finished) must be refused too.
    const last = [...run.digests.entries()].at(-1);
    if (!last || !random.chance(0.25) || seen.transport) return;
    const c = command(a, run, 'APPROVAL', last[1], decider(a, run));
    await sendDecision(a, c, { intent: 'not waiting' });
    return;
  }
  const style = random.weighted<Style>([
    ['single', 5],
    ['double', 2],
    ['concurrent', 2],
    ['stale', 1.5],
    ['delayed', 1.5],
  ]);
  await decideAs(a, style, run, seen.pending, `g${seen.seq}`);
}

/** One way of deciding the turn a run was seen waiting on. */
async function decideAs(
  a: Actor,
  style: Style,
  run: TrackedRun,
  pending: { readonly kind: string; readonly turn: number; readonly digest: string },
  group: string,
): Promise<void> {
  const { random } = a;
  const { kind, digest, turn } = pending;
  switch (style) {
    case 'single':
      await sendDecision(a, command(a, run, kind, digest, decider(a, run)), { intent: 'single' });
      return;
    case 'delayed':
      await sleep(random.int(0, 1500));
      await sendDecision(a, command(a, run, kind, digest, decider(a, run)), { intent: 'delayed' });
      return;
    case 'stale': {
      const stale = staleDigest(a, run, turn, digest);
      const c = command(a, run, kind, stale.digest, decider(a, run));
      const intent = stale.madeUp ? 'stale digest, made up' : "stale digest, an earlier turn's";
      await sendDecision(a, c, { intent, stale: stale.madeUp });
      return;
    }
    case 'double': {
      // why: a double click repeats the very same request, with or without its idempotency key.
      const c = command(a, run, kind, digest, decider(a, run));
      const clicks = random.int(2, 3);
      const intent = c.input.idempotencyKey ? 'double click, one key' : 'double click, no key';
      await Promise.all(Array.from({ length: clicks }, () => sendDecision(a, c, { intent, group })));
      return;
    }
    case 'concurrent': {
      const users = new Set<string>();
      const n = random.int(2, 4);
      while (users.size < n) users.add(decider(a, run, users));
      const commands = [...users].map((u) => command(a, run, kind, digest, u));
      await Promise.all(commands.map((c) => sendDecision(a, c, { intent: 'concurrent deciders', group })));
      return;
    }
  }
}

/** Sends an earlier keyed decision again: the same (its first receipt) or changed (KEY_REUSED). */
async function replay(a: Actor): Promise<void> {
  const { stage, random } = a;
  if (stage.keyed.length === 0) return;
  const earlier = random.pick(stage.keyed);
  if (random.chance(0.7)) {
    const c = { op: earlier.op, user: earlier.user, input: earlier.input };
    await sendDecision(a, c, { intent: 'replay, same key' });
    return;
  }
  const changed = { ...earlier.input, turnDigest: random.hex(64) };
  await sendDecision(
    a,
    { op: earlier.op, user: earlier.user, input: changed },
    { intent: 'replay, key reused', stale: true },
  );
}

async function cancel(a: Actor): Promise<void> {
  if (a.stage.active.length === 0) return;
  const run = a.random.pick(a.stage.active);
  const user = a.random.chance(0.7) ? run.owner : 'admin';
  const answer = await request(a, 'cancelRun', user, { id: run.id }, { runId: run.id, intent: 'cancel' });
  const i = a.stage.active.indexOf(run);
  if (i >= 0 && answer.runStatus === 'CANCELLED') a.stage.active.splice(i, 1);
}

async function inbox(a: Actor): Promise<void> {
  const user = a.random.pick(['carol', 'bob', 'admin']);
  await request(a, 'inbox', user, {}, { runId: null, intent: 'inbox' });
}

/** A short-lived runProgress subscription on a random API instance (subscribe, wait, close). */
async function churn(a: Actor): Promise<void> {
  const { stage, random } = a;
  if (stage.active.length === 0) return;
  const run = random.pick(stage.active);
  const api = target(a);
  try {
    const c = await GqlWsConnection.open(api.wsUrl!, stage.tokens[random.pick(['admin', 'bob'])]!, 10_000);
    stage.stats.churnSubscriptions++;
    c.subscribe(RUN_PROGRESS, { runId: run.id }, () => undefined);
    await sleep(random.int(200, 3000));
    await c.close();
  } catch {
    // why: the instance may have been killed under it; counted, not an invariant.
    stage.stats.churnErrors++;
  }
}

type Action = 'start' | 'decide' | 'replay' | 'cancel' | 'inbox' | 'churn';

const ACTIONS: Record<Action, (a: Actor) => Promise<void>> = { start, decide, replay, cancel, inbox, churn };

function choose(a: Actor): Action {
  const active = a.stage.active.length;
  if (active < 6) return 'start';
  return a.random.weighted<Action>([
    ['start', active < 40 ? 2 : 0.3],
    ['decide', 7],
    ['replay', 0.6],
    ['cancel', 0.3],
    ['inbox', 0.4],
    ['churn', 0.5],
  ]);
}

/** One actor: random actions with short pauses until the chaos ends. */
export async function lane(stage: Stage, laneNo: number, random: Random): Promise<number> {
  const a: Actor = { stage, lane: laneNo, random };
  let actions = 0;
  while (Date.now() < stage.until) {
    await ACTIONS[choose(a)](a);
    actions++;
    await sleep(random.int(20, 200));
  }
  return actions;
}

/** kill -9 of a random worker or API instance (never the probe) at random times, restarted at once. */
export async function killer(stage: Stage, random: Random, meanSeconds: number): Promise<string[]> {
  const killed: string[] = [];
  if (meanSeconds <= 0) return killed;
  for (;;) {
    const wait = random.exponential(meanSeconds * 1000);
    if (Date.now() + wait >= stage.until) return killed;
    await sleep(wait);
    const name = await stage.cluster.killOne(random);
    if (name) killed.push(name);
  }
}

/**
 * Switches soak-multi off for 1.5-4 s at random times: decisions meanwhile are refused
 * (CONFIGURATION_INACTIVE) or, when recorded before and picked up meanwhile, handed back.
 */
export async function flicker(
  stage: Stage,
  random: Random,
  client: Client,
  meanSeconds: number,
): Promise<number> {
  let flicks = 0;
  if (meanSeconds <= 0) return flicks;
  for (;;) {
    const wait = random.exponential(meanSeconds * 1000);
    const off = random.int(1500, 4000);
    if (Date.now() + wait + off >= stage.until) return flicks;
    await sleep(wait);
    const offAt = await setConfigurationActive(client, FLICKERED, false);
    stage.history.append({ type: 'configuration', identifier: FLICKERED, active: false, atMs: offAt });
    await sleep(off);
    const onAt = await setConfigurationActive(client, FLICKERED, true);
    stage.history.append({ type: 'configuration', identifier: FLICKERED, active: true, atMs: onAt });
    flicks++;
  }
}
