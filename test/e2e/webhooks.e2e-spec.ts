// Webhooks through the public API on a real database: admins register endpoints (the secret
// shown once), the outbox is written in the transaction of the change it reports, workers
// deliver signed requests (verified here with the standardwebhooks package) at least once,
// retried, in order per run, and the delivery log can be read and replayed. The SSRF guard
// and admin-only access are in webhooks-ssrf-guard.e2e-spec.ts.
import { APPROVE, digestOf, upsertConfiguration } from '../support/decisions';
import { startRun, until, waitForRest } from '../support/runs';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';
import { startReceiver, type Receiver } from '../support/webhook-receiver';
import {
  ALL_EVENTS,
  CREATE,
  DELETE,
  DELIVERIES,
  LIST,
  REPLAY,
  ROTATE,
  UPDATE,
  type Delivery,
} from '../support/webhooks';

describe('webhooks', () => {
  describe('delivered to a local receiver (private networks allowed)', () => {
    let receiver: Receiver;
    const { t, ids } = useTestApp(
      {
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOKS_RETRY_BASE_MS: '20',
        WEBHOOKS_RETRY_MAX_DELAY_MS: '100',
        WEBHOOKS_POLL_MS: '50',
        PUBLIC_CLIENT_URL: 'https://countersign.example.com',
        APPROVAL_EXPIRY_INTERVAL_SECONDS: '1',
      },
      { beforeClose: () => receiver?.close() },
    );
    let endpointId: string;

    beforeAll(async () => {
      receiver = await startReceiver();
      const res = await t.gql<{ createWebhookEndpoint: { secret: string; endpoint: { id: string } } }>(
        CREATE,
        {
          input: { url: receiver.url, eventTypes: ALL_EVENTS },
        },
      );
      expect(res.errors).toBeUndefined();
      expect(res.data!.createWebhookEndpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      receiver.useSecret(res.data!.createWebhookEndpoint.secret);
      endpointId = res.data!.createWebhookEndpoint.endpoint.id;
    });

    const deliveries = async (vars: Record<string, unknown>): Promise<Delivery[]> => {
      const res = await t.gql<{ webhookDeliveries: { nodes: Delivery[] } }>(DELIVERIES, {
        first: 200,
        ...vars,
      });
      expect(res.errors).toBeUndefined();
      return res.data!.webhookDeliveries.nodes;
    };
    const settledOf = (runId: string) =>
      until(
        async () =>
          (await deliveries({ endpointId }))
            .filter((d) => d.runId === runId)
            .every((d) => d.status !== 'PENDING'),
        20_000,
        'the deliveries of the run to finish',
      );

    it('delivers each event of a run once per success, in order, after failed tries, signed', async () => {
      receiver.failFirst(2);
      const run = await startRun(t, 'alice', {
        configurationId: ids.configurations['demo-editor'],
        prompt: 'SEO please',
        subjectPageId: ids.pages.Products,
      });
      expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
      const approved = await t.gql(
        APPROVE,
        { input: { runId: run.id, turnDigest: await digestOf(t, run.id) } },
        'carol',
      );
      expect(approved.errors).toBeUndefined();
      expect(await waitForRest(t, run.id)).toBe('COMPLETED');
      await until(
        () => receiver.succeeded().filter((r) => r.runId === run.id).length === 3,
        20_000,
        'three events delivered',
      );
      await settledOf(run.id);

      const ofRun = receiver.succeeded().filter((r) => r.runId === run.id);
      expect(ofRun.map((r) => r.type)).toEqual(['run.waiting', 'decision.recorded', 'run.settled']);
      expect(new Set(ofRun.map((r) => r.id)).size).toBe(3);
      expect(receiver.forged).toBe(0);
      // every try the receiver saw of these events: two 500s, then one success each
      for (const event of ofRun) {
        expect(receiver.received.filter((r) => r.id === event.id).map((r) => r.answered)).toEqual([
          500, 500, 204,
        ]);
      }
      const log = (await deliveries({ endpointId })).filter((d) => d.runId === run.id);
      expect(log).toHaveLength(3);
      for (const d of log) {
        expect(d.status).toBe('SUCCEEDED');
        expect(d.attempts.map((a) => a.statusCode)).toEqual([500, 500, 204]);
        expect(d.attempts[0]!.error).toMatch(/500/);
      }

      const waiting = ofRun[0]!.payload.data;
      expect(waiting).toMatchObject({
        runId: run.id,
        status: 'WAITING_FOR_APPROVAL',
        kind: 'APPROVAL',
        turn: 1,
        link: `https://countersign.example.com/app/?run=${run.id}`,
      });
      expect(waiting.calls.count).toBeGreaterThanOrEqual(1);
      const approvers = (waiting.approvers as Array<{ username: string }>).map((a) => a.username);
      expect(approvers).toEqual(expect.arrayContaining(['alice', 'carol', 'admin']));
      expect(approvers).not.toContain('dave');
      // never a tool's arguments, whoever receives it
      expect(JSON.stringify(ofRun.map((r) => r.payload))).not.toMatch(/"arguments"/);
      expect(ofRun[1]!.payload.data).toMatchObject({
        runId: run.id,
        kind: 'APPROVE',
        turn: 1,
        path: 'INLINE',
      });
      expect(ofRun[2]!.payload.data).toMatchObject({ runId: run.id, status: 'COMPLETED' });
      receiver.failFirst(0);

      const metrics = await (await fetch(t.url.replace(/\/graphql$/, '/metrics'))).text();
      const series = (name: string) =>
        Number(
          metrics
            .split('\n')
            .find((l) => l.startsWith(`${name} `))
            ?.split(' ')[1] ?? 0,
        );
      expect(series('countersign_webhook_deliveries_total{outcome="succeeded"}')).toBe(3);
      expect(series('countersign_webhook_deliveries_total{outcome="retried"}')).toBe(6);
      expect(series('countersign_webhook_delivery_seconds_count')).toBe(3);
    }, 60_000);

    it('sends run.expired, not decision.recorded, when nobody decides by the deadline', async () => {
      const configurationId = await upsertConfiguration(t, {
        identifier: 'webhook-deadline',
        privacyLevel: 'FULL',
        providerOptions: {
          rounds: [
            { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Lapsed' } }] },
            { text: 'ok' },
          ],
        },
        approvalTimeoutSeconds: 1,
        onApprovalTimeout: 'FAIL',
      });
      const run = await startRun(t, 'alice', {
        configurationId,
        prompt: 'SEO please',
        subjectPageId: ids.pages.Products,
      });
      expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
      await until(
        () => receiver.succeeded().filter((r) => r.runId === run.id).length === 3,
        20_000,
        'three events of the expired run delivered',
      );
      const ofRun = receiver.succeeded().filter((r) => r.runId === run.id);
      expect(ofRun.map((r) => r.type)).toEqual(['run.waiting', 'run.expired', 'run.settled']);
      const [expiry] = await t.dataSource.query(
        `SELECT id, turn FROM decision WHERE run_id = $1 AND kind = 'EXPIRE' AND decided_by IS NULL`,
        [run.id],
      );
      expect(ofRun[1]!.payload.data).toMatchObject({
        runId: run.id,
        decisionId: expiry.id,
        turn: expiry.turn,
      });
      expect(typeof ofRun[1]!.payload.data.expiredAt).toBe('string');
      expect(ofRun[2]!.payload.data).toMatchObject({ runId: run.id, status: 'FAILED' });
      await settledOf(run.id);
    }, 60_000);

    it('sends nothing for a decision whose transaction rolled back', async () => {
      const run = await startRun(t, 'alice', {
        configurationId: ids.configurations['demo-editor'],
        prompt: 'SEO please',
        subjectPageId: ids.pages.About,
      });
      expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
      await settledOf(run.id);
      // why: the decision's step is written after the decision record (and its outbox row) in
      // the claim's transaction: failing it rolls all of them back.
      await t.dataSource.query(`CREATE FUNCTION webhook_fault() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.run_id = '${run.id}' AND NEW.kind = 'APPROVAL' THEN RAISE EXCEPTION 'injected fault'; END IF;
          RETURN NEW;
        END $$`);
      await t.dataSource.query(
        `CREATE TRIGGER webhook_fault BEFORE INSERT ON run_step FOR EACH ROW EXECUTE FUNCTION webhook_fault()`,
      );
      const digest = await digestOf(t, run.id);
      try {
        const refused = await t.gql(APPROVE, { input: { runId: run.id, turnDigest: digest } }, 'carol');
        expect(refused.errors).toBeDefined();
      } finally {
        await t.dataSource.query(`DROP TRIGGER webhook_fault ON run_step`);
        await t.dataSource.query(`DROP FUNCTION webhook_fault()`);
      }
      const rows: Array<{ n: number }> = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM webhook_delivery WHERE run_id = $1 AND event_type = 'decision.recorded'`,
        [run.id],
      );
      expect(rows[0]!.n).toBe(0);
      expect(
        (await t.dataSource.query(`SELECT count(*)::int AS n FROM decision WHERE run_id = $1`, [run.id]))[0]
          .n,
      ).toBe(0);

      // the same decision, taken again, is reported once
      const approved = await t.gql(APPROVE, { input: { runId: run.id, turnDigest: digest } }, 'carol');
      expect(approved.errors).toBeUndefined();
      expect(await waitForRest(t, run.id)).toBe('COMPLETED');
      await until(
        () => receiver.succeeded().some((r) => r.runId === run.id && r.type === 'run.settled'),
        20_000,
        'the settle delivered',
      );
      const types = receiver
        .succeeded()
        .filter((r) => r.runId === run.id)
        .map((r) => r.type);
      expect(types).toEqual(['run.waiting', 'decision.recorded', 'run.settled']);
    }, 60_000);

    it('writes nothing to the outbox for events no endpoint subscribes to', async () => {
      const off = await t.gql(UPDATE, { id: endpointId, input: { eventTypes: ['RUN_SETTLED'] } });
      expect(off.errors).toBeUndefined();
      const run = await startRun(t, 'alice', {
        configurationId: ids.configurations['demo-editor'],
        prompt: 'SEO please',
        subjectPageId: ids.pages.Products,
      });
      expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
      const rows: Array<{ n: number }> = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM webhook_delivery WHERE run_id = $1`,
        [run.id],
      );
      expect(rows[0]!.n).toBe(0);
      await t.gql(`mutation($id: ID!) { cancelRun(runId: $id) { status } }`, { id: run.id }, 'alice');
      await until(
        () => receiver.succeeded().some((r) => r.runId === run.id && r.type === 'run.settled'),
        20_000,
        'the cancel delivered',
      );
      expect(
        receiver
          .succeeded()
          .filter((r) => r.runId === run.id)
          .map((r) => r.type),
      ).toEqual(['run.settled']);
      const back = await t.gql(UPDATE, { id: endpointId, input: { eventTypes: ALL_EVENTS } });
      expect(back.errors).toBeUndefined();
    }, 60_000);

    it('replays a delivery: the same event id, a new delivery, sent again', async () => {
      const [done] = (await deliveries({ endpointId })).filter((d) => d.status === 'SUCCEEDED');
      const before = receiver.succeeded().filter((r) => r.id === done!.eventId).length;
      const res = await t.gql<{ replayWebhookDelivery: Delivery }>(REPLAY, { id: done!.id });
      expect(res.errors).toBeUndefined();
      expect(res.data!.replayWebhookDelivery).toMatchObject({ eventId: done!.eventId, replayOf: done!.id });
      await until(
        () => receiver.succeeded().filter((r) => r.id === done!.eventId).length === before + 1,
        20_000,
        'the replay delivered',
      );
      await until(
        async () => (await deliveries({ eventId: done!.eventId })).every((d) => d.status === 'SUCCEEDED'),
        20_000,
        'the replay recorded',
      );
      const ofEvent = await deliveries({ eventId: done!.eventId });
      expect(ofEvent.map((d) => d.replayOf)).toEqual([done!.id, null]);
      expect(errorCode(await t.gql(REPLAY, { id: '00000000-0000-4000-8000-000000000000' }))).toBe(
        'NOT_FOUND',
      );
    }, 60_000);

    it('pages the endpoints and the delivery log by cursor; disables, rotates and deletes', async () => {
      const second = await t.gql<{ createWebhookEndpoint: { endpoint: { id: string } } }>(CREATE, {
        input: { url: `${receiver.url}/2`, eventTypes: ['RUN_SETTLED'], enabled: false },
      });
      const secondId = second.data!.createWebhookEndpoint.endpoint.id;
      const first = await t.gql<{ webhookEndpoints: { nodes: Array<{ id: string }>; pageInfo: any } }>(LIST, {
        first: 1,
      });
      expect(first.data!.webhookEndpoints.nodes.map((n) => n.id)).toEqual([endpointId]);
      expect(first.data!.webhookEndpoints.pageInfo.hasNextPage).toBe(true);
      const next = await t.gql<{ webhookEndpoints: { nodes: Array<{ id: string }>; pageInfo: any } }>(LIST, {
        first: 1,
        after: first.data!.webhookEndpoints.pageInfo.endCursor,
      });
      expect(next.data!.webhookEndpoints.nodes.map((n) => n.id)).toEqual([secondId]);
      expect(next.data!.webhookEndpoints.pageInfo.hasNextPage).toBe(false);

      const log = await t.gql<{ webhookDeliveries: { nodes: Delivery[]; pageInfo: any } }>(DELIVERIES, {
        endpointId,
        first: 2,
      });
      const rest = await t.gql<{ webhookDeliveries: { nodes: Delivery[] } }>(DELIVERIES, {
        endpointId,
        first: 200,
        after: log.data!.webhookDeliveries.pageInfo.endCursor,
      });
      const all = await deliveries({ endpointId });
      expect(
        [...log.data!.webhookDeliveries.nodes, ...rest.data!.webhookDeliveries.nodes].map((d) => d.id),
      ).toEqual(all.map((d) => d.id));

      const rotated = await t.gql<{ rotateWebhookSecret: { secret: string } }>(ROTATE, { id: secondId });
      expect(rotated.data!.rotateWebhookSecret.secret).toMatch(/^whsec_/);
      expect(await t.gql(DELETE, { id: secondId })).toMatchObject({ data: { deleteWebhookEndpoint: true } });
      expect(errorCode(await t.gql(DELETE, { id: secondId }))).toBe('NOT_FOUND');
    }, 60_000);
  });
});
