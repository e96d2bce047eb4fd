import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); playwright-core never downloads a browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const hasChromium = (): boolean => existsSync(CHROMIUM);

/**
 * `describe` where Chromium is installed, else `describe.skip` with a message saying why, so a
 * machine with only Node.js and npm still runs `npm test`.
 */
export function describeInBrowser(name: string, body: () => void): void {
  if (hasChromium()) {
    describe(name, body);
    return;
  }
  console.warn(`SKIPPED browser tests "${name}": ${CHROMIUM} is absent (apt-get install -y chromium)`);
  describe.skip(name, body);
}

// why: this machine's network is closed; without the background-networking flags Chromium keeps
// opening connections that are refused, and looks up Google's hosts at every start.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  /** A new tab (its own session storage, so one signed-in user per tab). */
  page(): Promise<Page>;
  close(): Promise<void>;
}

/** Headless Chromium with a new, empty profile folder that is removed on close. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'cs-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1180, height: 820 },
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  context.setDefaultTimeout(15_000);
  return {
    context,
    page: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The client's URL on a booted test app (whose `url` is the GraphQL endpoint). */
export function appUrl(graphqlUrl: string, path = '/app/'): string {
  return new URL(path, graphqlUrl).toString();
}

/** Opens the client and signs in by pasting a token, by keyboard. */
export async function signIn(page: Page, graphqlUrl: string, token: string, path = '/app/'): Promise<void> {
  await page.goto(appUrl(graphqlUrl, path));
  const field = page.getByLabel('Personal access token');
  await field.fill(token);
  await field.press('Enter');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * Evaluates an expression in the page. why: a string, because the test code is compiled
 * without the DOM's types (the server's tsconfig), so `window` does not type-check here.
 */
export async function inPage<T = unknown>(page: Page, expression: string): Promise<T> {
  return page.evaluate<T>(expression);
}

/** Presses Tab until the focused element's name is `name` (fails after `max` presses). */
export async function tabTo(page: Page, name: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const label = await inPage<string>(
      page,
      `(() => { const el = document.activeElement;
        return el ? (el.getAttribute('aria-label') ?? el.textContent ?? '').trim() : ''; })()`,
    );
    if (label === name) return;
  }
  throw new Error(`Tab never reached "${name}"`);
}

const SCREENSHOT_DIR = join(__dirname, '..', '..', '..', 'docs', 'screenshots');

/** Saves a screenshot to docs/screenshots/<name>.png, only with CS_SCREENSHOTS=1 (not in CI). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.CS_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
