import { randomUUID } from 'node:crypto';
import { decide, digestOf, receiptOf, startResting } from '../support/decisions';
import { demoIds, until, waitForRest } from '../support/runs';
import { errorCode, TestApp } from '../support/test-app';
import { useTestApp } from '../support/suite';

// `GET /metrics` as Prometheus scrapes it (docs/operations.md, "Metrics").

/** The value of one series (`name{labels}` exactly as exposed), or 0 when it is not there yet. */
function valueOf(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const metricsUrl = (t: TestApp): string => t.url.replace(/\/graphql$/, '/metrics');

async function scrape(
  t: TestApp,
  token?: string,
): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(metricsUrl(t), { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

const DECIDED_INLINE = 'countersign_decisions_total{outcome="approve",path="inline"}';
const DECIDED_DURABLE = 'countersign_decisions_total{outcome="approve",path="durable"}';

describe('/metrics (enabled, no token: the default)', () => {
  const { t } = useTestApp({ DECISION_PATH: 'inline' });

  it('counts one inline decision and one refusal by code, and reads the runs from the database', async () => {
    const ids = await demoIds(t);
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.Widget,
    });
    const before = await scrape(t);
    expect(before.status).toBe(200);
    expect(before.type).toMatch(/^text\/plain;.*version=0\.0\.4/);
    const [waiting] = await t.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM run WHERE status IN ('WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT')`,
    );
    expect(valueOf(before.text, 'countersign_waiting_runs')).toBe(waiting!.n);
    expect(valueOf(before.text, 'countersign_runs{status="WAITING_FOR_APPROVAL"}')).toBe(waiting!.n);
    expect(valueOf(before.text, 'countersign_live_workers')).toBe(1);
    expect(before.text).toMatch(/^countersign_oldest_waiting_run_age_seconds \d+$/m);

    const receipt = receiptOf(
      await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }),
    );
    expect(receipt.path).toBe('INLINE');
    const unknown = await decide(t, 'approve', 'carol', { runId: randomUUID(), turnDigest: 'x'.repeat(64) });
    expect(errorCode(unknown)).toBe('NOT_FOUND');
    expect(await waitForRest(t, runId)).toBe('COMPLETED');

    const after = await scrape(t);
    expect(valueOf(after.text, DECIDED_INLINE) - valueOf(before.text, DECIDED_INLINE)).toBe(1);
    expect(valueOf(after.text, DECIDED_DURABLE)).toBe(0);
    const notFound = 'countersign_refusals_total{code="NOT_FOUND"}';
    expect(valueOf(after.text, notFound) - valueOf(before.text, notFound)).toBe(1);
    expect(valueOf(after.text, 'countersign_waiting_runs')).toBe(waiting!.n - 1);
    const continuations =
      'countersign_run_segment_duration_seconds_count{segment="continuation",outcome="completed"}';
    expect(valueOf(after.text, continuations) - valueOf(before.text, continuations)).toBe(1);
    expect(after.text).toMatch(/^countersign_step_duration_seconds_count\{kind="[A-Z_]+"\} [1-9]\d*$/m);
  });

  it('counts a durable decision under its path', async () => {
    const ids = await demoIds(t);
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.Widget,
    });
    const before = await scrape(t);
    const input = { runId, turnDigest: await digestOf(t, runId), path: 'DURABLE' };
    expect(receiptOf(await decide(t, 'approve', 'carol', input)).path).toBe('DURABLE');
    const after = await scrape(t);
    expect(valueOf(after.text, DECIDED_DURABLE) - valueOf(before.text, DECIDED_DURABLE)).toBe(1);
    expect(valueOf(after.text, DECIDED_INLINE)).toBe(valueOf(before.text, DECIDED_INLINE));
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
  });

  it('counts the subscriptions open over graphql-ws while they are open', async () => {
    const client = t.ws('alice');
    const ids = await demoIds(t);
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.About,
    });
    const stop = client.subscribe(
      { query: `subscription($id: ID!) { runProgress(runId: $id) { kind } }`, variables: { id: runId } },
      { next: () => undefined, error: () => undefined, complete: () => undefined },
    );
    await until(async () => valueOf((await scrape(t)).text, 'countersign_open_subscriptions') === 1);
    stop();
    await until(async () => valueOf((await scrape(t)).text, 'countersign_open_subscriptions') === 0);
  });
});

describe('/metrics with METRICS_TOKEN', () => {
  const token = 'metrics-scrape-token-0123456789';
  const { t } = useTestApp({ METRICS_TOKEN: token });

  it('refuses a scrape without the token (401, no figure) and answers one with it', async () => {
    for (const given of [undefined, 'wrong-token-0123456789', t.tokens.admin!]) {
      const refused = await scrape(t, given);
      expect(refused.status).toBe(401);
      expect(refused.text).not.toContain('countersign_');
    }
    const allowed = await scrape(t, token);
    expect(allowed.status).toBe(200);
    expect(allowed.text).toContain('countersign_decisions_total');
  });
});

describe('/metrics with METRICS_ENABLED=false', () => {
  const { t } = useTestApp({ METRICS_ENABLED: 'false' });

  it('is not there (404), and the API works as before', async () => {
    const res = await scrape(t);
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('countersign_');
    const viewer = await t.gql<{ viewer: { user: { username: string } } }>(
      '{ viewer { user { username } } }',
    );
    expect(viewer.data?.viewer.user.username).toBe('admin');
  });
});
