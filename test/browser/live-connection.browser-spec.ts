import { startResting } from '../support/decisions';
import { demoIds } from '../support/runs';
import { bootTestApp, TestApp } from '../support/test-app';
import { describeInBrowser, launchBrowser, signIn, type Browser } from './support/browser';

/**
 * /app with CORS_ORIGINS set (docs/security.md "Origins"): the server's own pages keep their
 * live connection, and a connection the server refuses shows as lost instead of hanging.
 */
describeInBrowser('live connection (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ids: Awaited<ReturnType<typeof demoIds>>;

  beforeAll(async () => {
    t = await bootTestApp({ CORS_ORIGINS: 'http://localhost:5173' });
    ids = await demoIds(t);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("keeps /app's inbox live from the server's own origin while CORS_ORIGINS names another", async () => {
    const page = await browser.page();
    await signIn(page, t.url, t.tokens.bob!);
    await page.locator('main').waitFor();
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor']!,
      prompt: 'Sharpen the SEO title',
      subjectPageId: ids.pages.About,
    });
    // The card arrives through inboxChanged over the WebSocket, without a reload.
    await page.locator(`article[data-run-id="${runId}"]`).waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-live="lost"]').count()).toBe(0);
  });

  it('shows the live connection as lost when the server refuses the socket (4403)', async () => {
    const page = await browser.page();
    // why: a browser cannot forge its Origin; the route stands in for a server that refuses it.
    await page.routeWebSocket(/\/graphql$/, (ws) => ws.close({ code: 4403, reason: 'Origin not allowed' }));
    await signIn(page, t.url, t.tokens.bob!);
    await page.locator('[data-live="lost"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-live="lost"]').innerText()).toContain('Live connection lost');
  });
});
