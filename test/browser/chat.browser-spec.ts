import type { Page } from 'playwright-core';
import { renderNotice } from '../../src/modules/conversations';
import { createToken, RUN_QUERY, upsertConfiguration } from '../support/decisions';
import { demoIds, until } from '../support/runs';
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

/** The chat in a real browser: start URLs, the page picker, the `/` skill picker, the decision card. */
describeInBrowser('chat (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ids: Awaited<ReturnType<typeof demoIds>>;

  beforeAll(async () => {
    t = await bootTestApp();
    ids = await demoIds(t);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  interface ConversationRow {
    id: string;
    view_page_id: number | null;
    view_language_id: number | null;
    skill_identifier: string | null;
    status: string;
    messages: number;
  }
  const conversationsOf = (username: string): Promise<ConversationRow[]> =>
    t.dataSource.query<ConversationRow[]>(
      `SELECT c.id, c.view_page_id, c.view_language_id, c.skill_identifier, c.status,
              (SELECT count(*)::int FROM conversation_message m WHERE m.conversation_id = c.id) AS messages
         FROM conversation c JOIN app_user u ON u.id = c.owner_id WHERE u.username = $1 ORDER BY c.created_at`,
      [username],
    );
  const conversationIdOf = (page: Page): string => new URL(page.url()).searchParams.get('conversation') ?? '';
  // why: the client replaces the URL through the History API, which fires no load event (and
  // the page's CSP forbids the eval that waitForFunction would use).
  const conversationOpened = (page: Page) =>
    until(() => /^\?conversation=[^&]+$/.test(new URL(page.url()).search), 15_000, 'the conversation URL');
  const input = (page: Page) => page.getByRole('combobox', { name: 'Message' });

  it('starts one conversation from ?pageId=&languageId=&skill=, replaces the URL, and a reload reopens it', async () => {
    const page = await browser.page();
    const start = `/app/chat?pageId=${ids.pages.About}&languageId=1&skill=tone-of-voice`;
    await signIn(page, t.url, t.tokens.alice!, start);
    await conversationOpened(page);
    const id = conversationIdOf(page);
    const rows = await conversationsOf('alice');
    expect(rows.map((r) => ({ ...r, id: String(r.id) }))).toEqual([
      {
        id,
        view_page_id: Number(ids.pages.About),
        view_language_id: 1,
        skill_identifier: 'tone-of-voice',
        status: 'IDLE',
        messages: 0,
      },
    ]);
    await page.locator(`[data-conversation-id="${id}"]`).waitFor();
    await page.locator('.conversation-context', { hasText: 'Deutsch' }).waitFor(); // loads after the view
    expect(await page.locator('.conversation-context').innerText()).toBe(
      'Page: Über uns /about · Deutsch · Ready',
    );
    await page.locator('.skill-chip', { hasText: 'Tone of voice' }).waitFor(); // the name, once the catalogue loaded

    await page.reload();
    await page.locator(`[data-conversation-id="${id}"]`).waitFor();
    expect(page.url()).toBe(appUrl(t.url, `/app/chat?conversation=${id}`));
    expect((await conversationsOf('alice')).length).toBe(1);
    // history: the start URL was replaced, not kept (Back does not start another)
    expect(await inPage<number>(page, 'window.history.length')).toBeLessThanOrEqual(2);
    await page.close();
  });

  it('starts a conversation from the page picker by keyboard, offering only the languages the user may edit', async () => {
    const page = await browser.page();
    await signIn(page, t.url, t.tokens.carol!, '/app/chat');
    await page.getByRole('heading', { name: 'New conversation' }).waitFor();
    const noPage = page.getByRole('radio', { name: 'No page (a general conversation)' });
    await noPage.focus();
    expect(await page.getByLabel('Language').isDisabled()).toBe(true);
    // the tree is one radio group in tree order: Home, About, Products, Widget, ...
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
    expect(await page.getByRole('radio', { name: /^Widget \(\/products\/widget, Demo\)$/ }).isChecked()).toBe(
      true,
    );
    const language = page.getByLabel('Language');
    // carol's groups edit en and de; the site's fr is not offered
    expect(await language.locator('option').allInnerTexts()).toEqual(['English (en)', 'Deutsch (de)']);
    await language.focus();
    await page.keyboard.press('ArrowDown');
    expect(await language.inputValue()).toBe('1');
    await screenshot(page, 'chat-new');
    await page.getByRole('button', { name: 'Start conversation' }).focus();
    await page.keyboard.press('Enter');
    await conversationOpened(page);
    const [row] = await conversationsOf('carol');
    expect(row).toMatchObject({
      view_page_id: Number(ids.pages.Widget),
      view_language_id: 1,
      skill_identifier: null,
    });
    await page.close();
  });

  it('opens the skill catalogue on "/" as an ARIA combobox; picking by keyboard sets the skill and sends nothing', async () => {
    const page = await browser.page();
    await signIn(page, t.url, t.tokens.alice!, `/app/chat?pageId=${ids.pages.Blog}`);
    await conversationOpened(page);
    const id = conversationIdOf(page);
    const skillOf = async () => (await conversationsOf('alice')).find((r) => String(r.id) === id)!;
    const box = input(page);
    const list = page.getByRole('listbox', { name: 'Skills' });
    await box.focus();
    expect(await box.getAttribute('aria-expanded')).toBe('false');

    await page.keyboard.type('/');
    await list.waitFor();
    expect(await box.getAttribute('aria-expanded')).toBe('true');
    expect(await box.getAttribute('aria-controls')).toBe(await list.getAttribute('id'));
    const options = list.getByRole('option');
    expect(await options.allInnerTexts()).toEqual([
      expect.stringMatching(/^\/seo-process Optimise the SEO of this page \(guided process\)/),
      expect.stringMatching(/^\/tone-of-voice Tone of voice/),
    ]); // the disabled legacy-skill is not in the catalogue
    const active = async () => {
      const activeId = await box.getAttribute('aria-activedescendant');
      return activeId
        ? page
            .locator(`[id="${activeId}"]`)
            .getAttribute('aria-selected')
            .then(async (sel) => ({ sel, text: await page.locator(`[id="${activeId}"]`).innerText() }))
        : null;
    };
    expect(await active()).toMatchObject({ sel: 'true', text: expect.stringMatching(/^\/seo-process/) });
    await page.keyboard.press('ArrowDown');
    expect(await active()).toMatchObject({ sel: 'true', text: expect.stringMatching(/^\/tone-of-voice/) });
    await page.keyboard.press('ArrowDown'); // wraps
    expect(await active()).toMatchObject({ text: expect.stringMatching(/^\/seo-process/) });
    await page.keyboard.press('ArrowUp');
    expect(await active()).toMatchObject({ text: expect.stringMatching(/^\/tone-of-voice/) });
    await screenshot(page, 'chat-skill-picker');

    await page.keyboard.press('Escape');
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    expect(await list.isHidden()).toBe(true);
    expect(await box.inputValue()).toBe('/');

    await page.keyboard.type('tone');
    expect(await options.count()).toBe(1);
    await page.keyboard.press('Tab'); // Tab picks
    await page.locator('.skill-chip').waitFor();
    expect(await box.inputValue()).toBe('');
    expect(await inPage(page, "document.activeElement?.getAttribute('role')")).toBe('combobox');
    await until(
      async () => (await skillOf()).skill_identifier === 'tone-of-voice',
      5000,
      'the skill to be set',
    );

    await page.keyboard.type('/ ');
    expect(await box.getAttribute('aria-expanded')).toBe('false'); // a space after the slash: no picker
    await box.fill('');
    await page.keyboard.type('/');
    await page.keyboard.press('Enter'); // Enter picks the active (first) option
    await until(
      async () => (await skillOf()).skill_identifier === 'seo-process',
      5000,
      'the skill to change',
    );
    await page.locator('.skill-chip', { hasText: 'Optimise' }).waitFor();
    expect(await page.locator('.skill-chip').innerText()).toMatch(
      /^Skill: Optimise the SEO of this page \(guided process\)/,
    );

    await page.getByRole('button', { name: 'Remove skill Optimise the SEO of this page' }).focus();
    await page.keyboard.press('Enter');
    await until(async () => (await skillOf()).skill_identifier === null, 5000, 'the skill to be removed');
    await until(async () => (await page.locator('.skill-chip').count()) === 0, 5000, 'the chip to go');
    expect((await skillOf()).messages).toBe(0); // picking and removing sent nothing
    await page.close();
  });

  it('sends a message; the decision card approves by keyboard with its progress, then the answer arrives', async () => {
    // why: the chat's configuration (Task "default": demo-editor) answers slowly here, so the
    // card's disabled form and running progress can be seen.
    await upsertConfiguration(t, {
      identifier: 'demo-editor',
      name: 'Demo editor',
      skillIdentifiers: ['seo-process', 'tone-of-voice', 'legacy-skill'],
      providerOptions: {
        rounds: [
          { toolCalls: [{ name: 'pages_read', arguments: {} }] },
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'A sharper SEO title' } }] },
          { text: 'I proposed a sharper SEO title for the page.', chunks: 5, chunkDelayMs: 400 },
        ],
      },
    });
    const page = await browser.page();
    await signIn(page, t.url, t.tokens.alice!, `/app/chat?pageId=${ids.pages.Launch}&languageId=0`);
    await conversationOpened(page);
    const id = conversationIdOf(page);
    await input(page).focus();
    await page.keyboard.type('Sharpen the SEO title');
    await page.keyboard.press('Enter');
    const card = page.getByRole('region', { name: 'The assistant proposes' });
    await card.waitFor({ timeout: 20_000 });
    expect(await card.locator('.preview').innerText()).toMatch(/^seoTitle: .* -> "A sharper SEO title"$/);
    await screenshot(page, 'chat-decision');
    await card.getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('Enter');
    const bar = card.getByRole('progressbar', { name: 'Progress of the decision' });
    await bar.waitFor();
    expect(await card.locator('fieldset.decision-controls').getAttribute('disabled')).toBe('');
    await until(
      async () => /^Step \d+, running$/.test((await bar.getAttribute('aria-valuetext')) ?? ''),
      10_000,
      'a running step count',
    );
    await screenshot(page, 'chat-deciding');
    await page.locator('.message-assistant').first().waitFor({ timeout: 20_000 });
    await until(async () => (await card.count()) === 0, 10_000, 'the decision card to go');
    const rows = await t.dataSource.query(
      `SELECT role FROM conversation_message WHERE conversation_id = $1 ORDER BY created_at, id`,
      [id],
    );
    expect(rows.map((r: { role: string }) => r.role)).toEqual(['USER', 'ASSISTANT']);
    expect(await page.locator('.message').allInnerTexts()).toEqual([
      expect.stringMatching(/^You\s+Sharpen the SEO title$/),
      expect.stringMatching(/^Assistant\s+/),
    ]);
    await screenshot(page, 'chat-answer');
    await page.close();
  });
  it('shows a notice in the reader’s language when the proposal was decided outside the chat', async () => {
    const groups = await t.gql<{ groups: Array<{ id: string; name: string }> }>('{ groups { id name } }');
    const editors = groups.data!.groups.find((g) => g.name === 'editors')!.id;
    const created = await t.gql<{ createUser: { id: string } }>(
      `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`,
      { input: { username: 'greta', displayName: 'Greta', locale: 'de', groupIds: [editors] } },
    );
    const greta = await createToken(t, created.data!.createUser.id, 'cli');
    const page = await browser.page();
    await signIn(page, t.url, greta.token, `/app/chat?pageId=${ids.pages.Home}&languageId=0`);
    await conversationOpened(page);
    const id = conversationIdOf(page);
    await input(page).focus();
    await page.keyboard.type('Bessere SEO bitte');
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'The assistant proposes' }).waitFor({ timeout: 20_000 });

    const waiting = await t.gql<{ conversation: { approvalRunId: string } }>(
      `query($id: ID!) { conversation(id: $id) { approvalRunId } }`,
      { id },
      greta.token,
    );
    const runId = waiting.data!.conversation.approvalRunId;
    const digest = (
      await t.gql<{ run: { pending: { turnDigest: string } } }>(RUN_QUERY, { id: runId }, 'carol')
    ).data!.run.pending.turnDigest;
    const approved = await t.gql(
      `mutation($input: ApproveRunInput!) { approveRun(input: $input) { path } }`,
      { input: { runId, turnDigest: digest } },
      'carol',
    );
    expect(approved.errors).toBeUndefined();

    const notice = page.locator('.message-notice');
    await notice.waitFor({ timeout: 20_000 });
    const expected = renderNotice('RUN_FINISHED_OUTSIDE', {}, 'de');
    expect(expected).toBe('Dieser Vorschlag wurde außerhalb des Chats entschieden.');
    expect(await notice.locator('.message-text').innerText()).toBe(expected);
    const stored = await t.dataSource.query<Array<{ notice: string }>>(
      `SELECT notice FROM conversation_message WHERE conversation_id = $1 AND role = 'NOTICE'`,
      [id],
    );
    expect(stored).toEqual([{ notice: 'RUN_FINISHED_OUTSIDE' }]); // stored language-neutral
    await until(
      async () => (await page.getByRole('region', { name: 'The assistant proposes' }).count()) === 0,
      10_000,
      'the decision card to go',
    );
    await screenshot(page, 'chat-notice');
    await page.close();
  });
});
