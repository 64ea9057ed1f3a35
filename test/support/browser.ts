import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type APIResponse, type BrowserContext, type Page, type Route } from 'playwright-core';
import { ARTIFACTS_DIR } from './database.js';

// Browser tests run Debian's chromium (apt-get install chromium) through playwright-core; no browser is ever downloaded.
export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** Says loudly that a browser test will not run here (the describe block is skipped with `skipIf(!HAS_CHROMIUM)`). */
export function warnWithoutChromium(what: string): void {
  if (!HAS_CHROMIUM) console.warn(`SKIPPED: Debian chromium not installed (apt-get install -y chromium): ${what} did not run`);
}

// Headless (also as root, hence --no-sandbox), and no attempts to reach outside hosts.
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

// No inline scripts, styles or event handlers anywhere: stricter than the server's own policy, so that any inline
// script or style in a page shows up as a violation.
const STRICT_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'";

/** Where browser tests leave their screenshots (created on launch). */
export const SCREENSHOTS = path.join(ARTIFACTS_DIR, 'screenshots');

export interface TestBrowser {
  context: BrowserContext;
  /** Content Security Policy errors any page logged (with `strictCspFor`). */
  cspViolations: string[];
  /** Uncaught errors in any page's scripts. */
  pageErrors: string[];
  /** The first tab (opened if none), failing a stuck step after 8 s, well before the test's own timeout. */
  tab(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * The app's answer to an intercepted request. The test process's own HTTP client keeps connections alive, and the
 * server closes one that has been idle for its keep-alive timeout: a request sent on it at that moment fails with
 * ECONNRESET before the server read it. A GET or HEAD is then sent once more; anything else fails (it is not sent
 * twice), and so does a second reset. Unanswered, the page's load never ended and the test timed out after 20 s.
 */
async function fetchOnce(route: Route): Promise<APIResponse> {
  try {
    return await route.fetch({ maxRedirects: 0 });
  } catch (error) {
    const method = route.request().method();
    if (!/ECONNRESET|socket hang up/.test(String(error)) || (method !== 'GET' && method !== 'HEAD')) throw error;
    return route.fetch({ maxRedirects: 0 });
  }
}

/**
 * A fresh headless chromium profile. With `strictCspFor` (the app's base URL), every response from the app is
 * served under STRICT_CSP, and each page's CSP violations and script errors are collected.
 */
export async function launchBrowser(options: { strictCspFor?: string; viewport?: { width: number; height: number } } = {}): Promise<TestBrowser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'kurate-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    ...(options.viewport ? { viewport: options.viewport } : {}),
  });
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  if (options.strictCspFor) {
    await context.route(`${options.strictCspFor}/**`, async (route) => {
      const response = await fetchOnce(route).catch((error: unknown) => error as Error);
      if (response instanceof Error) return route.abort('failed');
      await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': STRICT_CSP } });
    });
    const watch = (page: Page) => {
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
      });
      page.on('pageerror', (error) => pageErrors.push(error.message));
    };
    context.on('page', watch);
    for (const page of context.pages()) watch(page);
  }
  return {
    context,
    cspViolations,
    pageErrors,
    async tab() {
      const page = context.pages()[0] ?? (await context.newPage());
      // Long enough for a page load while CI runs every other test file on the same 2 cores (an 8 s limit was
      // overrun there once); the journeys assert what the pages do, not how fast they load.
      page.setDefaultTimeout(20_000);
      return page;
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Opens `next` (a path that needs a login), logs in through the form it leads to, and waits to be back at `next`. */
export async function logInThroughForm(page: Page, baseUrl: string, user: { email: string; password: string }, next: string): Promise<void> {
  await page.goto(`${baseUrl}${next}`);
  await page.waitForURL(/\/login\?next=/);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((url) => url.pathname === next.split('?')[0]);
}

/** Does a review action and waits for the page it leads to (the URL may look alike: only its `done=` changes). */
export async function afterReviewAction(page: Page, act: () => Promise<void>): Promise<void> {
  const before = page.url();
  await act();
  await page.waitForURL((url) => url.toString() !== before && /done=\d+/.test(url.toString()));
}
