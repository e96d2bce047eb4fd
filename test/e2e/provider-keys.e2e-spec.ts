import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { upsertConfiguration, UPSERT_CONFIGURATION } from '../support/decisions';
import { startRun, waitForRest } from '../support/runs';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';

/**
 * Provider configurations may name as their API key only variables meant for provider keys, and
 * reach only the allowed provider URLs: refused at upsert (BAD_USER_INPUT naming the path) and
 * again when a run calls the provider (a configuration stored some other way sends nothing).
 */
describe('provider keys and URLs', () => {
  let server: Server;
  let requests: Array<string | undefined>;
  let baseUrl: string;
  beforeAll(async () => {
    requests = [];
    server = createServer((req, res) => {
      requests.push(req.headers.authorization);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  const { t, ids } = useTestApp(() => ({
    HOME: '/home/countersign',
    CS_PROVIDER_KEY_LOCAL: 'sk-local',
    PROVIDER_BASE_URLS: `${baseUrl}, https://llm.internal.test/v1`,
  }));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  let pageId: string;

  const configurations = async (): Promise<number> =>
    (await t.dataSource.query('SELECT count(*)::int AS n FROM configuration'))[0].n as number;
  const upsert = (identifier: string, providerOptions: Record<string, unknown>) =>
    t.gql(UPSERT_CONFIGURATION, {
      input: { identifier, name: identifier, provider: 'openai', model: 'm', providerOptions },
    });

  beforeAll(() => {
    pageId = ids.pages.Home!;
  });

  it.each([
    ['HOME', 'must name a variable meant for provider keys: start with CS_PROVIDER_KEY_'],
    ['PATH', 'must name a variable meant for provider keys'],
    ['STATE_ENCRYPTION_KEY', 'names a secret of the server itself'],
  ])('refuses apiKeyEnv %s with BAD_USER_INPUT at /apiKeyEnv; nothing stored', async (name, why) => {
    const before = await configurations();
    const res = await upsert(`key-${name.toLowerCase()}`, { baseUrl, apiKeyEnv: name });
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.extensions).toMatchObject({
      field: 'providerOptions',
      problems: [{ path: '/apiKeyEnv', message: expect.stringContaining(why) }],
    });
    expect(await configurations()).toBe(before);
  });

  it('refuses a base URL outside PROVIDER_BASE_URLS with BAD_USER_INPUT at /baseUrl; nothing stored', async () => {
    const before = await configurations();
    for (const url of ['https://collector.example.test/v1', `${baseUrl}0`, 'https://llm.internal.test/v2']) {
      const res = await upsert('elsewhere', { baseUrl: url, apiKeyEnv: 'CS_PROVIDER_KEY_LOCAL' });
      expect(errorCode(res)).toBe('BAD_USER_INPUT');
      expect(res.errors![0]!.extensions).toMatchObject({ problems: [{ path: '/baseUrl' }] });
    }
    expect(await configurations()).toBe(before);
  });

  it('accepts a prefixed key variable at an allowed URL, and sends that key', async () => {
    const configurationId = await upsertConfiguration(t, {
      identifier: 'allowed-provider',
      provider: 'openai',
      model: 'm',
      providerOptions: { baseUrl, apiKeyEnv: 'CS_PROVIDER_KEY_LOCAL' },
    });
    requests.length = 0;
    const run = await startRun(t, 'alice', { configurationId, subjectPageId: pageId, prompt: 'Hi' });
    expect(await waitForRest(t, run.id)).toBe('FAILED');
    expect(requests).toEqual(['Bearer sk-local']);
  });

  it('refuses at call time a configuration stored past the checks: no request leaves', async () => {
    const configurationId = await upsertConfiguration(t, {
      identifier: 'tampered-provider',
      provider: 'openai',
      model: 'm',
      providerOptions: { baseUrl, apiKeyEnv: 'CS_PROVIDER_KEY_LOCAL' },
    });
    await t.dataSource.query(
      `UPDATE configuration SET provider_options = jsonb_set(provider_options, '{apiKeyEnv}', '"HOME"') WHERE id = $1`,
      [configurationId],
    );
    requests.length = 0;
    const run = await startRun(t, 'alice', { configurationId, subjectPageId: pageId, prompt: 'Hi' });
    expect(await waitForRest(t, run.id)).toBe('FAILED');
    const [row] = await t.dataSource.query(
      'SELECT termination_reason, error_message FROM run WHERE id = $1',
      [run.id],
    );
    expect(row.termination_reason).toBe('PROVIDER_FAILED');
    expect(row.error_message).toMatch(
      /The API key variable HOME must name a variable meant for provider keys/,
    );
    expect(row.error_message).not.toContain('/home/countersign');
    expect(requests).toEqual([]);
  });
});
