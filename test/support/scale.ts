import { DataSource } from 'typeorm';

/** What the scale suites share (scale*.e2e-spec.ts): the documents and database look-ups. */

export const START = `mutation($input: StartRunInput!) { startRun(input: $input) { id status } }`;
export const APPROVE = `mutation($input: ApproveRunInput!) { approveRun(input: $input) { path run { status } } }`;

/** The first row of a query. */
export async function one<T>(ds: DataSource, sql: string, params: unknown[] = []): Promise<T> {
  const rows = await ds.query<T[]>(sql, params);
  return rows[0]!;
}

/** Ids the tests need: the demo-editor configuration and the /products page. */
export async function editorAndPage(
  ds: DataSource,
): Promise<{ configurationId: string; subjectPageId: string }> {
  const c = await one<{ id: number }>(ds, `SELECT id FROM configuration WHERE identifier = 'demo-editor'`);
  const p = await one<{ id: number }>(ds, `SELECT id FROM page WHERE slug = '/products'`);
  return { configurationId: String(c.id), subjectPageId: String(p.id) };
}

/** A stand-in for a live worker's heartbeat, so an API instance records decisions DURABLE. */
export const pretendLiveWorker = (ds: DataSource): Promise<unknown> =>
  ds.query(
    `INSERT INTO worker_heartbeat (worker_id, name) VALUES ('test-stand-in', 'worker:test:0')
     ON CONFLICT (worker_id) DO UPDATE SET last_seen = now()`,
  );
