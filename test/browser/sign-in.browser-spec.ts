import { bootTestApp, TestApp } from '../support/test-app';
import {
  appUrl,
  describeInBrowser,
  inPage,
  launchBrowser,
  screenshot,
  signIn,
  type Browser,
} from './support/browser';

/** Sign-in by pasting a token, kept in session storage only. */
describeInBrowser('sign-in (browser)', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await bootTestApp();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('refuses an unknown token with a readable message and keeps nothing', async () => {
    const page = await browser.page();
    await page.goto(appUrl(t.url));
    const field = page.getByLabel('Personal access token');
    await field.fill(`cs_${'x'.repeat(43)}`);
    await screenshot(page, 'sign-in');
    await field.press('Enter');
    expect(await page.getByRole('alert').innerText()).toBe(
      'This token is not valid (unknown, revoked or expired). Sign in again.',
    );
    expect(await inPage(page, '({ ...sessionStorage, ...localStorage })')).toEqual({});
    await page.close();
  });

  it('keeps a working token in session storage across reloads, and forgets it on sign-out', async () => {
    const page = await browser.page();
    await signIn(page, t.url, `Bearer ${t.tokens.carol!}`);
    expect(await page.locator('.who').innerText()).toBe('Signed in as Carol (carol)');
    expect(await inPage(page, 'Object.values(sessionStorage)')).toEqual([t.tokens.carol]);
    expect(await inPage(page, 'localStorage.length')).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).focus();
    await page.keyboard.press('Enter');
    await page.getByLabel('Personal access token').waitFor();
    expect(await inPage(page, 'sessionStorage.length')).toBe(0);
    await page.close();
  });

  it('signs out with a message when the token is revoked while the tab is open', async () => {
    const created = await t.gql<{ createApiToken: { tokenId: string; token: string } }>(
      `mutation($u: ID!) { createApiToken(userId: $u, label: "browser") { tokenId token } }`,
      {
        u: (await t.gql<{ viewer: { user: { id: string } } }>('{ viewer { user { id } } }', {}, 'dave')).data!
          .viewer.user.id,
      },
      'dave',
    );
    const { tokenId, token } = created.data!.createApiToken;
    const page = await browser.page();
    await signIn(page, t.url, token);
    const revoked = await t.gql(
      `mutation($id: ID!) { revokeApiToken(tokenId: $id) }`,
      { id: tokenId },
      'dave',
    );
    expect(revoked.errors).toBeUndefined();
    await page.reload();
    expect(await page.getByRole('alert').innerText()).toBe(
      'This token is not valid (unknown, revoked or expired). Sign in again.',
    );
    expect(await inPage(page, 'sessionStorage.length')).toBe(0);
    await page.close();
  });
});
