import type { Page } from 'playwright-core';
import { RUN_QUERY, startResting, upsertConfiguration } from '../support/decisions';
import { demoIds, startRun, until, waitForRest } from '../support/runs';
import { bootTestApp, TestApp } from '../support/test-app';
import { describeInBrowser, launchBrowser, screenshot, signIn, tabTo, type Browser } from './support/browser';

const SLOW_ROUNDS = [
  { toolCalls: [{ name: 'pages_read', arguments: {} }] },
  { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'A sharper SEO title' } }] },
  // why: the answer streams for ~2 s, so the test sees the form disabled while the decision runs.
  { text: 'I proposed a sharper SEO title for the page.', chunks: 5, chunkDelayMs: 400 },
];

/** The inbox in a real browser: approve with live progress, four-eyes, deny, input, live list. */
describeInBrowser('inbox (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ids: Awaited<ReturnType<typeof demoIds>>;
  let slowEditor: string;

  beforeAll(async () => {
    t = await bootTestApp();
    ids = await demoIds(t);
    slowEditor = await upsertConfiguration(t, {
      identifier: 'browser-slow-editor',
      providerOptions: { rounds: SLOW_ROUNDS },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const card = (page: Page, runId: string) => page.locator(`article[data-run-id="${runId}"]`);
  const dbRun = async (runId: string) => {
    const [run] = await t.dataSource.query('SELECT status, step_count FROM run WHERE id = $1', [runId]);
    const decisions: Array<{ kind: string; denial_reason: string | null; username: string }> =
      await t.dataSource.query(
        `SELECT d.kind, d.denial_reason, u.username FROM decision d JOIN app_user u ON u.id = d.decided_by WHERE d.run_id = $1`,
        [runId],
      );
    return { status: run.status as string, stepCount: Number(run.step_count), decisions };
  };

  it('bob approves alice’s run by keyboard; the form is disabled while the progress bar counts steps to SETTLED', async () => {
    const runId = await startResting(t, 'alice', {
      configurationId: slowEditor,
      prompt: 'Sharpen the SEO title',
      subjectPageId: ids.pages.About,
    });
    const page = await browser.page();
    await signIn(page, t.url, t.tokens.bob!);
    const item = card(page, runId);
    await item.waitFor();
    await item.getByText('pages_update').waitFor();
    expect(await item.locator('.preview').innerText()).toBe('seoTitle: "About us" -> "A sharper SEO title"');
    expect(await item.locator('details').count()).toBe(0); // bob may not read the arguments
    expect(await item.locator('.hint').innerText()).toBe(
      'You may decide this run but not read its details, so arguments are hidden.',
    );
    await screenshot(page, 'inbox');

    await tabTo(page, 'Approve');
    await page.keyboard.press('Enter');
    const bar = item.getByRole('progressbar', { name: 'Progress of the decision' });
    await bar.waitFor();
    expect(await item.locator('fieldset.decision-controls').getAttribute('disabled')).toBe('');
    for (const control of ['Approve', 'Deny']) {
      expect(await item.getByRole('button', { name: control }).isDisabled()).toBe(true);
    }
    expect(await item.getByLabel('Reason').isDisabled()).toBe(true);
    await until(
      async () => /^Step \d+, running$/.test((await bar.getAttribute('aria-valuetext')) ?? ''),
      10_000,
      'a running step count',
    );
    await screenshot(page, 'inbox-deciding');

    const outcome = page.locator(`.outcome[data-run-id="${runId}"]`);
    await outcome.waitFor({ timeout: 20_000 });
    const text = await outcome.locator('.outcome-text').innerText();
    const { status, stepCount, decisions } = await dbRun(runId);
    // the bar reached SETTLED with the run's own step count
    expect(await outcome.getByRole('progressbar').getAttribute('aria-valuetext')).toBe(
      `Settled: completed after ${stepCount} steps`,
    );
    expect({ status, decisions }).toEqual({
      status: 'COMPLETED',
      decisions: [{ kind: 'APPROVE', denial_reason: null, username: 'bob' }],
    });
    // the click carried an idempotency key, so a repeated request would get the same receipt
    const keys = await t.dataSource.query<Array<{ idempotency_key: string | null }>>(
      'SELECT idempotency_key FROM decision WHERE run_id = $1',
      [runId],
    );
    expect(keys.map((k) => k.idempotency_key)).toEqual([expect.stringMatching(/^web-[0-9a-f]{32}$/)]);
    expect(text).toBe(
      `You approved browser-slow-editor (started by Alice): the run completed after ${stepCount} steps (COMPLETED).`,
    );
    // the list reloaded: the decided run is gone from it
    await until(async () => (await item.count()) === 0, 10_000, 'the decided card to leave the list');
    await screenshot(page, 'inbox-settled');
    await page.close();
  });

  it('shows the initiator the four-eyes message instead of an Approve that would be refused; denying with SKIP works', async () => {
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-four-eyes'],
      prompt: 'Sharpen the SEO title',
      subjectPageId: ids.pages.Products,
    });
    const page = await browser.page();
    await signIn(page, t.url, t.tokens.alice!);
    const item = card(page, runId);
    await item.waitFor();
    const fourEyes = item.locator('.four-eyes');
    expect(await fourEyes.innerText()).toBe(
      'Someone else must approve: this run needs a second person (four-eyes rule). You may still deny it.',
    );
    const approve = item.getByRole('button', { name: 'Approve' });
    expect(await approve.isDisabled()).toBe(true);
    expect(await approve.getAttribute('aria-describedby')).toBe(await fourEyes.getAttribute('id'));
    await screenshot(page, 'inbox-four-eyes');

    await item.getByLabel('Reason').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown'); // No reason -> VARIANT -> SKIP
    expect(await item.getByLabel('Reason').inputValue()).toBe('SKIP');
    await tabTo(page, 'Deny');
    await page.keyboard.press('Enter');
    const outcome = page.locator(`.outcome[data-run-id="${runId}"]`);
    await outcome.waitFor({ timeout: 20_000 });
    expect(await outcome.locator('.outcome-text').innerText()).toMatch(
      /^You denied Demo four-eyes \(started by Alice\): the run completed after \d+ steps/,
    );
    expect((await dbRun(runId)).decisions).toEqual([
      { kind: 'DENY', denial_reason: 'SKIP', username: 'alice' },
    ]);
    await page.close();
  });

  it('answers an input request with the form generated from its JSON Schema', async () => {
    const runId = await startResting(
      t,
      'alice',
      {
        configurationId: ids.configurations['demo-question'],
        prompt: 'Ask me',
        subjectPageId: ids.pages.Blog,
      },
      'WAITING_FOR_INPUT',
    );
    const page = await browser.page();
    await signIn(page, t.url, t.tokens.alice!);
    const item = card(page, runId);
    await item.waitFor();
    expect(await item.locator('.question').innerText()).toBe('Which tone should the page use?');
    const group = item.getByRole('group', { name: 'tone', exact: true });
    expect(await group.getByRole('radio').count()).toBe(2);
    await item.getByRole('button', { name: 'Submit answer' }).click();
    expect(await item.locator('.field-error').innerText()).toBe('Required.');
    expect((await dbRun(runId)).decisions).toEqual([]);
    await screenshot(page, 'inbox-input');

    await group.getByRole('radio', { name: 'formal' }).focus();
    await page.keyboard.press('ArrowDown'); // radio group: moves to and checks "casual"
    expect(await group.getByRole('radio', { name: 'casual' }).isChecked()).toBe(true);
    await tabTo(page, 'Submit answer');
    await page.keyboard.press('Enter');
    await page.locator(`.outcome[data-run-id="${runId}"]`).waitFor({ timeout: 20_000 });
    const { status, decisions } = await dbRun(runId);
    expect({ status, decisions }).toEqual({
      status: 'COMPLETED',
      decisions: [{ kind: 'INPUT', denial_reason: null, username: 'alice' }],
    });
    await page.close();
  });

  it('shows "this proposal changed, reload" when the run moved on to a new proposal under a page that missed it', async () => {
    const twoProposals = await upsertConfiguration(t, {
      identifier: 'browser-two-proposals',
      providerOptions: {
        rounds: [
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'First proposal' } }] },
          { toolCalls: [{ name: 'pages_update', arguments: { seoTitle: 'Second proposal' } }] },
          { text: 'Done.' },
        ],
      },
    });
    const page = await browser.page();
    // why: a page whose live connection is cut keeps showing the first proposal.
    await page.routeWebSocket(/\/graphql$/, () => undefined);
    const runId = await startResting(t, 'alice', {
      configurationId: twoProposals,
      prompt: 'Two',
      subjectPageId: ids.pages.Home,
    });
    await signIn(page, t.url, t.tokens.bob!);
    const item = card(page, runId);
    await item.getByText('"First proposal"').waitFor();

    const digest = (
      await t.gql<{ run: { pending: { turnDigest: string } } }>(RUN_QUERY, { id: runId }, 'carol')
    ).data!.run.pending.turnDigest;
    const approved = await t.gql(
      `mutation($input: ApproveRunInput!) { approveRun(input: $input) { path } }`,
      {
        input: { runId, turnDigest: digest },
      },
      'carol',
    );
    expect(approved.errors).toBeUndefined();
    expect(await waitForRest(t, runId)).toBe('WAITING_FOR_APPROVAL'); // now on the second proposal
    const before = await dbRun(runId);

    await item.getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('Enter');
    expect(await item.getByRole('alert').innerText()).toBe('This proposal changed, reload.');
    expect(await dbRun(runId)).toEqual(before); // refused before anything ran
    expect(before.decisions).toEqual([{ kind: 'APPROVE', denial_reason: null, username: 'carol' }]);
    await screenshot(page, 'inbox-stale');

    await page.getByRole('button', { name: 'Reload' }).click();
    await card(page, runId).getByText('"Second proposal"').waitFor();
    await page.close();
  });

  it('shows runs entering and leaving the inbox live (inboxChanged), without a reload', async () => {
    const page = await browser.page();
    await signIn(page, t.url, t.tokens.bob!);
    await page.locator('ul.inbox[aria-busy="false"]').waitFor();
    const before = await page.locator('article[data-run-id]').count();

    const run = await startRun(t, 'carol', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.Widget,
    });
    expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
    await card(page, run.id).waitFor();
    expect(await page.locator('article[data-run-id]').count()).toBe(before + 1);

    const res = await t.gql<{ run: { pending: { turnDigest: string } } }>(RUN_QUERY, { id: run.id }, 'carol');
    const denied = await t.gql(
      `mutation($input: DenyRunInput!) { denyRun(input: $input) { path } }`,
      {
        input: { runId: run.id, turnDigest: res.data!.run.pending.turnDigest },
      },
      'carol',
    );
    expect(denied.errors).toBeUndefined();
    await until(async () => (await card(page, run.id).count()) === 0, 10_000, 'the run to leave bob’s inbox');
    expect(await page.locator('article[data-run-id]').count()).toBe(before);
    await page.close();
  });
  it('shows a quorum as "1 of 2 approvals" with who approved, and the deadline as a countdown', async () => {
    const quorum = await upsertConfiguration(t, {
      identifier: 'browser-quorum-deadline',
      providerOptions: { rounds: SLOW_ROUNDS.slice(1) },
      requiredApprovals: 2,
      approvalTimeoutSeconds: 3600,
    });
    const runId = await startResting(t, 'alice', {
      configurationId: quorum,
      prompt: 'Two people decide this',
      subjectPageId: ids.pages.About,
    });
    // bob's approval is one vote: the form says it is counted, the run keeps waiting
    const bobPage = await browser.page();
    await signIn(bobPage, t.url, t.tokens.bob!);
    const bobItem = card(bobPage, runId);
    await bobItem.waitFor();
    await bobItem.getByRole('button', { name: 'Approve' }).click();
    await bobItem.getByTestId('vote-counted').waitFor();
    expect((await dbRun(runId)).status).toBe('WAITING_FOR_APPROVAL');
    await bobPage.close();
    const page = await browser.page();
    await signIn(page, t.url, t.tokens.carol!);
    const item = card(page, runId);
    await item.waitFor();
    expect(await item.getByTestId('quorum').innerText()).toBe('1 of 2 approvals (Bob)');
    expect(await item.getByTestId('countdown').innerText()).toMatch(/^(59 min \d+ s|1 h 0 min) left$/);
    await page.close();
  });
});
