// Webhooks through the public API on a real database: the SSRF guard and admin-only access,
// checked on an instance without WEBHOOKS_ALLOW_PRIVATE_NETWORKS. A private or local address
// is refused at registration and checked again at delivery. Delivery itself (the outbox,
// signed requests, retries, the delivery log) is in webhooks.e2e-spec.ts.
import { startRun, until, waitForRest } from '../support/runs';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';
import { startReceiver, type Receiver } from '../support/webhook-receiver';
import { CREATE, DELIVERIES, LIST, REPLAY } from '../support/webhooks';

describe('webhooks', () => {
  describe('the SSRF guard and admin-only access (private networks not allowed)', () => {
    let receiver: Receiver;
    const { t, ids } = useTestApp({ WEBHOOKS_POLL_MS: '50' }, { beforeClose: () => receiver?.close() });
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    const endpointRows = async () =>
      (await t.dataSource.query(`SELECT count(*)::int AS n FROM webhook_endpoint`))[0].n as number;

    it.each([
      'http://127.0.0.1:9/hook',
      'http://localhost:9/hook',
      'http://[::1]:9/hook',
      'http://10.0.0.8/hook',
      'http://169.254.169.254/latest',
      'http://[fd00::1]/hook',
      'http://0.0.0.0/hook',
    ])('refuses %s with WEBHOOK_URL_NOT_ALLOWED and writes nothing', async (url) => {
      const res = await t.gql(CREATE, { input: { url, eventTypes: ['RUN_SETTLED'] } });
      expect(errorCode(res)).toBe('WEBHOOK_URL_NOT_ALLOWED');
      expect(await endpointRows()).toBe(0);
    });

    it('refuses a URL that is no http(s) URL with BAD_USER_INPUT', async () => {
      const res = await t.gql(CREATE, { input: { url: 'file:///etc/passwd', eventTypes: ['RUN_SETTLED'] } });
      expect(errorCode(res)).toBe('BAD_USER_INPUT');
      expect(await endpointRows()).toBe(0);
    });

    it('refuses non-admins every webhook operation', async () => {
      const create = await t.gql(
        CREATE,
        { input: { url: 'https://hooks.example.com/x', eventTypes: ['RUN_SETTLED'] } },
        'alice',
      );
      expect(errorCode(create)).toBe('FORBIDDEN');
      expect(errorCode(await t.gql(LIST, {}, 'carol'))).toBe('FORBIDDEN');
      expect(errorCode(await t.gql(DELIVERIES, {}, 'alice'))).toBe('FORBIDDEN');
      expect(errorCode(await t.gql(REPLAY, { id: '00000000-0000-4000-8000-000000000000' }, 'alice'))).toBe(
        'FORBIDDEN',
      );
      expect(await endpointRows()).toBe(0);
    });

    it('checks the address again at delivery: a private address found then is not called', async () => {
      // why: an endpoint whose name resolved publicly at registration and privately now (DNS
      // rebinding) stands here as a row written behind the API's back.
      await t.dataSource.query(
        `INSERT INTO webhook_endpoint (id, url, event_types, secret)
         VALUES (gen_random_uuid(), $1, '{run.settled}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')`,
        [receiver.url],
      );
      const run = await startRun(t, 'alice', {
        configurationId: ids.configurations['demo-editor'],
        prompt: 'SEO please',
        subjectPageId: ids.pages.Products,
      });
      expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
      await t.gql(`mutation($id: ID!) { cancelRun(runId: $id) { status } }`, { id: run.id }, 'alice');
      await until(
        async () =>
          (
            await t.dataSource.query(
              `SELECT a.error FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id WHERE d.run_id = $1`,
              [run.id],
            )
          ).length > 0,
        20_000,
        'a try of the delivery',
      );
      const [attempt] = await t.dataSource.query(
        `SELECT a.status_code, a.error FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id
          WHERE d.run_id = $1`,
        [run.id],
      );
      expect(attempt).toMatchObject({ status_code: null, error: expect.stringMatching(/127\.0\.0\.1/) });
      expect(receiver.received).toHaveLength(0);
      expect(receiver.forged).toBe(0);
    }, 60_000);
  });
});
