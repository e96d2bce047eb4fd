import { startResting } from '../support/decisions';
import { mapIdentityGroup, TestOidcProvider } from '../support/oidc-provider';
import { demoIds, until, waitForRest } from '../support/runs';
import { bootTestApp, TestApp } from '../support/test-app';
import {
  appUrl,
  describeInBrowser,
  inPage,
  launchBrowser,
  screenshot,
  type Browser,
} from './support/browser';

const GROUPS = ['Countersign.Editors', 'Countersign.Approvers'];

/**
 * The reference client signs in with a real OpenID provider (authorisation code + PKCE, the
 * provider's development login form), and the "done when": a run started by one user of
 * the provider is approved by another under four-eyes, in the client, and the record names both.
 */
describeInBrowser('sign-in with the identity provider (browser)', () => {
  let idp: TestOidcProvider;
  let t: TestApp;
  let browser: Browser;
  let ids: Awaited<ReturnType<typeof demoIds>>;

  beforeAll(async () => {
    idp = await TestOidcProvider.create();
    t = await bootTestApp(
      idp.settings({ OIDC_WEB_CLIENT_ID: 'countersign-web', OIDC_WEB_SCOPE: 'openid profile api' }),
    );
    // why: the provider only sends the browser back to a registered address: the app's, known now.
    // why: access tokens of 70 s are renewed about 10 s after sign-in (oidc-client-ts renews 60 s early).
    idp.browserFlow = { redirectUris: [appUrl(t.url)], groups: GROUPS, accessTokenSeconds: 70 };
    await idp.rotate();
    ids = await demoIds(t);
    await mapIdentityGroup(t.dataSource, 'Countersign.Editors', 'editors');
    await mapIdentityGroup(t.dataSource, 'Countersign.Approvers', 'approvers');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await idp?.stop();
  });

  it('signs in with the provider (PKCE), keeps the token in session storage, and approves another user’s four-eyes run', async () => {
    const edna = await idp.token('edna', { claims: { preferred_username: 'edna', groups: GROUPS } });
    const runId = await startResting(t, edna, {
      configurationId: ids.configurations['demo-four-eyes'],
      prompt: 'SEO please',
      subjectPageId: ids.pages['About'],
    });

    const page = await browser.page();
    await page.goto(appUrl(t.url));
    expect(await page.getByLabel('Personal access token').count()).toBe(1); // the token form stays
    const authorize = page.waitForRequest((r) => r.url().startsWith(`${idp.issuer}/auth?`));
    await page.getByRole('button', { name: 'Sign in with your organisation' }).click();
    const query = new URL((await authorize).url()).searchParams;
    expect([query.get('response_type'), query.get('code_challenge_method')]).toEqual(['code', 'S256']);
    await page.locator('input[name="login"]').fill('olga');
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await page.locator('.who').innerText()).toBe('Signed in as olga (olga)');
    expect(new URL(page.url()).search).toBe('');
    const stored = await inPage<string[]>(page, 'Object.values(sessionStorage)');
    expect(stored.some((v) => v.startsWith('eyJ'))).toBe(true);
    expect(await inPage(page, 'localStorage.length')).toBe(0);
    await screenshot(page, 'sign-in-provider');
    const first = stored.find((v) => v.startsWith('eyJ'));

    const item = page.locator(`article[data-run-id="${runId}"]`);
    await item.waitFor();
    await item.getByRole('button', { name: 'Approve' }).click();
    const decided = async () =>
      (await t.dataSource.query<unknown[]>('SELECT 1 FROM decision WHERE run_id = $1', [runId])).length > 0;
    await until(decided, 10_000, 'the decision');
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    const record = await t.dataSource.query<{ owner: string; decider: string; kind: string }[]>(
      `SELECT o.username AS owner, d.username AS decider, x.kind FROM decision x JOIN run r ON r.id = x.run_id
         JOIN app_user o ON o.id = r.owner_id JOIN app_user d ON d.id = x.decided_by WHERE x.run_id = $1`,
      [runId],
    );
    expect(record).toEqual([{ owner: 'edna', decider: 'olga', kind: 'APPROVE' }]);

    // Silent renewal: a new access token replaces the first one in session storage and works.
    const current = async () =>
      (await inPage<string[]>(page, 'Object.values(sessionStorage)')).find((v) => v.startsWith('eyJ'));
    await until(async () => (await current()) !== first, 30_000, 'a renewed access token');
    const renewed = (await current())!;
    expect(
      (
        await t.gql<{ viewer: { user: { username: string } } }>(
          '{ viewer { user { username } } }',
          {},
          renewed,
        )
      ).data,
    ).toEqual({ viewer: { user: { username: 'olga' } } });
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.close();
  });
});
