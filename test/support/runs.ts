import type { Client as WsClient } from 'graphql-ws';
import type { TestApp } from './test-app';

/** Ids of the demo data by natural key: configuration identifier, page name, username. */
export interface DemoIds {
  configurations: Record<string, string>;
  pages: Record<string, string>;
  users: Record<string, string>;
}

/** Ids of the demo data, looked up by natural key. */
export async function demoIds(t: TestApp): Promise<DemoIds> {
  const configurations: Array<{ id: number; identifier: string }> = await t.dataSource.query(
    'SELECT id, identifier FROM configuration',
  );
  const pages: Array<{ id: number; slug: string; site_id: number | null }> = await t.dataSource.query(
    'SELECT id, slug, site_id FROM page',
  );
  const users: Array<{ id: number; username: string }> = await t.dataSource.query(
    'SELECT id, username FROM app_user',
  );
  const bySlug: Record<string, string> = {
    '/': 'Home',
    '/about': 'About',
    '/products': 'Products',
    '/products/widget': 'Widget',
    '/blog': 'Blog',
    '/blog/launch': 'Launch',
    '/orphan': 'Orphan',
  };
  return {
    configurations: Object.fromEntries(configurations.map((c) => [c.identifier, String(c.id)])),
    pages: Object.fromEntries(
      pages.filter((p) => bySlug[p.slug]).map((p) => [bySlug[p.slug]!, String(p.id)]),
    ),
    users: Object.fromEntries(users.map((u) => [u.username, String(u.id)])),
  };
}

const START = `mutation Start($input: StartRunInput!) { startRun(input: $input) { id status } }`;

/** Starts a run as a demo user and returns its id (fails the test on an error). */
export async function startRun(
  t: TestApp,
  as: string,
  input: Record<string, unknown>,
): Promise<{ id: string; status: string }> {
  const res = await t.gql<{ startRun: { id: string; status: string } }>(START, { input }, as);
  if (!res.data?.startRun) throw new Error(`startRun failed: ${JSON.stringify(res.errors)}`);
  return res.data.startRun;
}

/** Polls the run's status (as admin) until it leaves RUNNING / QUEUED / DECISION_RECORDED. */
export async function waitForRest(t: TestApp, runId: string, timeoutMs = 15_000): Promise<string> {
  const moving = new Set(['RUNNING', 'QUEUED', 'DECISION_RECORDED']);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows: Array<{ status: string }> = await t.dataSource.query('SELECT status FROM run WHERE id = $1', [
      runId,
    ]);
    const status = rows[0]?.status ?? 'MISSING';
    if (!moving.has(status)) return status;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface Collected<T> {
  readonly events: T[];
  readonly errors: unknown[];
  /** Resolves when the subscription completes or fails. */
  readonly done: Promise<void>;
  /** Resolves once the server acknowledged the subscription (the first event or a short delay). */
  unsubscribe(): void;
}

/** Subscribes and collects every event until the stream completes. */
export function collect<T>(
  client: WsClient,
  query: string,
  variables: Record<string, unknown>,
): Collected<T> {
  const events: T[] = [];
  const errors: unknown[] = [];
  let unsubscribe: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    unsubscribe = client.subscribe<T>(
      { query, variables },
      {
        next: (v) => {
          if (v.errors) errors.push(...v.errors);
          if (v.data) events.push(v.data);
        },
        error: (e) => {
          errors.push(e);
          resolve();
        },
        complete: () => resolve(),
      },
    );
  });
  return { events, errors, done, unsubscribe: () => unsubscribe() };
}

/** Waits until a predicate holds (polling), or fails after the timeout. */
export async function until(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
