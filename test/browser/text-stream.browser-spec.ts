import { upsertConfiguration } from '../support/decisions';
import { demoIds, until } from '../support/runs';
import { bootTestApp, TestApp } from '../support/test-app';
import { describeInBrowser, launchBrowser, signIn, type Browser } from './support/browser';

const ANSWER =
  'The answer grows in front of the reader, chunk by chunk, and a reload halfway shows it once, whole.';

/** The chat renders the answer as it streams; a reload halfway resumes it and shows it once. */
describeInBrowser('streamed answers (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ids: Awaited<ReturnType<typeof demoIds>>;

  beforeAll(async () => {
    t = await bootTestApp();
    ids = await demoIds(t);
    browser = await launchBrowser();
    await upsertConfiguration(t, {
      identifier: 'streamer',
      privacyLevel: 'FULL',
      providerOptions: { rounds: [{ text: ANSWER, chunks: 30, chunkDelayMs: 120 }] },
    });
    await t.dataSource.query(
      `UPDATE task SET configuration_id = (SELECT id FROM configuration WHERE identifier = 'streamer')
        WHERE identifier = 'default'`,
    );
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the answer growing with a Stop button outside the live log, reconnects halfway, then shows it once', async () => {
    const page = await browser.page();
    await signIn(page, t.url, t.tokens.alice!, `/app/chat?pageId=${ids.pages.Launch}&languageId=0`);
    await until(() => /^\?conversation=[^&]+$/.test(new URL(page.url()).search), 15_000, 'the conversation');
    const box = page.getByRole('combobox', { name: 'Message' });
    await box.focus();
    await page.keyboard.type('Tell me how streaming looks');
    await page.keyboard.press('Enter');

    const streaming = page.locator('.message-streaming');
    const text = async () =>
      (await streaming.count()) > 0 ? await streaming.locator('.message-text').innerText() : '';
    await until(async () => (await text()).length > 5, 15_000, 'the first part of the answer');
    const early = await text();
    expect(await streaming.getAttribute('aria-live')).toBe('off');
    expect(await streaming.getByRole('button', { name: 'Stop' }).count()).toBe(1);
    await until(async () => (await text()).length > early.length + 5, 10_000, 'the answer to grow');
    const later = await text();
    expect(later.startsWith(early)).toBe(true);
    expect(later.length).toBeLessThan(ANSWER.length);

    await page.reload();
    await until(
      async () => (await text()).length >= later.length,
      10_000,
      'the text so far after the reload',
    );
    expect((await text()).startsWith(later)).toBe(true);

    const log = page.getByRole('log', { name: 'Messages' });
    await log.locator('.message-assistant', { hasText: ANSWER }).waitFor({ timeout: 20_000 });
    await until(async () => (await streaming.count()) === 0, 5_000, 'the streamed copy to go');
    const all = await page.locator('.conversation').innerText();
    expect(all.split(ANSWER).length - 1).toBe(1);
  }, 60_000);

  it('Stop cancels the turn: the text so far stays, marked as stopped, and the notice follows', async () => {
    const page = await browser.page();
    await signIn(page, t.url, t.tokens.alice!, `/app/chat?pageId=${ids.pages.Launch}&languageId=0`);
    await until(() => /^\?conversation=[^&]+$/.test(new URL(page.url()).search), 15_000, 'the conversation');
    await page.getByRole('combobox', { name: 'Message' }).focus();
    await page.keyboard.type('Start and stop');
    await page.keyboard.press('Enter');
    const streaming = page.locator('.message-streaming');
    await streaming.getByRole('button', { name: 'Stop' }).waitFor({ timeout: 15_000 });
    await until(
      async () => (await streaming.locator('.message-text').innerText()).length > 5,
      10_000,
      'some text',
    );
    await streaming.getByRole('button', { name: 'Stop' }).click();
    await streaming
      .locator('.message-note', { hasText: 'stopped before it was finished' })
      .waitFor({ timeout: 15_000 });
    const shown = await streaming.locator('.message-text').innerText();
    expect(shown.length).toBeLessThan(ANSWER.length);
    expect(ANSWER.startsWith(shown)).toBe(true);
    expect(await streaming.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    await page.getByRole('log', { name: 'Messages' }).locator('.message-notice').waitFor();
    const [run] = await t.dataSource.query(
      `SELECT r.status FROM run r JOIN app_user u ON u.id = r.owner_id
        WHERE u.username = 'alice' ORDER BY r.created_at DESC LIMIT 1`,
    );
    expect(run.status).toBe('CANCELLED');
  }, 60_000);
});
