import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { ARTIFACTS_DIR } from '../support/database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// An admin deciding a cluster's policy in a real browser, under the strict CSP the lead plans (no inline anything).
const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const STRICT_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'";
const SCREENSHOTS = path.join(ARTIFACTS_DIR, 'screenshots');

describe.skipIf(!HAS_CHROMIUM)('the policy UI in a real browser', () => {
  let t: TestApp;
  let context: BrowserContext;
  let page: Page;
  let userDataDir: string;
  const cspViolations: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    await t.app.get(PolicyReconciler).whenStartupRebuildDone();
    const api = await t.as('admin');
    for (const [title, cluster] of [['Diary', 'personal'], ['Trip', 'personal'], ['Install', 'docs']]) {
      await api.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\nAbout ${title}.\n` }).expect(201);
    }
    await t.dataSource.query(`INSERT INTO kg_content_chunks (page_id, position, text, content_hash) SELECT id, 1, 'x', 'h' FROM pages WHERE slug = 'diary'`);
    mkdirSync(SCREENSHOTS, { recursive: true });
    userDataDir = mkdtempSync(path.join(tmpdir(), 'kurate-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 900 },
    });
    await context.route(`${t.baseUrl}/**`, async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': STRICT_CSP } });
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(8000);
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    const admin = await t.user('admin', { name: 'Barbara' });
    await page.goto(`${t.baseUrl}/admin/kg-policy`);
    await page.waitForURL(/\/login\?next=%2Fadmin%2Fkg-policy$/);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/admin\/kg-policy$/);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    await t?.close();
  });

  it('decides a pending cluster: estimate first, then confirm', async () => {
    await page.screenshot({ path: path.join(SCREENSHOTS, 'kg-policy-dashboard.png'), fullPage: true });
    await page.getByRole('link', { name: 'decide' }).first().click();
    await page.waitForURL(/\/admin\/kg-policy\/ui\/clusters\/docs$/);
    await page.getByLabel(/^Include/).check();
    await page.getByLabel(/^Reason/).fill('public documentation');
    await page.getByRole('button', { name: 'Show what it would change' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/Confirm: include docs/);
    expect(await page.locator('main').textContent()).toContain('This change would hide nothing; reveal 1 page.');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'kg-policy-confirm.png'), fullPage: true });
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(/\/admin\/kg-policy\/ui\/clusters\/docs\?notice=set$/);
    expect(await page.locator('.notice').textContent()).toContain('Policy saved');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'kg-policy-cluster.png'), fullPage: true });
  });

  it('explains a page from the front door', async () => {
    await page.goto(`${t.baseUrl}/admin/kg-policy`);
    await page.getByLabel('Page (slug)').fill('diary');
    await page.getByRole('button', { name: 'Explain' }).click();
    await page.waitForURL(/\/ui\/explain\?slug=diary$/);
    expect(await page.locator('main [role=status]').textContent()).toBe('excluded: no policy covers cluster `personal` (the default is exclude)');
  });

  it('purges with a typed confirmation', async () => {
    await page.goto(`${t.baseUrl}/admin/kg-policy/ui/clusters/personal`);
    await page.getByRole('button', { name: 'See what a purge would delete' }).click();
    expect(await page.locator('main').textContent()).toContain('would delete 1 row derived from 2 excluded pages');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'kg-policy-purge.png'), fullPage: true });
    await page.getByLabel(/^Type personal/).fill('personal');
    await page.getByRole('button', { name: 'Purge' }).click();
    await page.waitForURL(/notice=purged$/);
    const left: { n: number }[] = await t.dataSource.query('SELECT count(*)::int AS n FROM kg_content_chunks');
    expect(left[0].n).toBe(0);
  });

  it('breaks no rule of the strict content security policy', () => {
    expect(cspViolations).toEqual([]);
  });
});
