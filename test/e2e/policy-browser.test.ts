// @module-tag slow (drives Chromium): `npm run test:fast` leaves it out; docs/testing.md
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { HAS_CHROMIUM, launchBrowser, SCREENSHOTS, warnWithoutChromium, type TestBrowser } from '../support/browser.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// An admin deciding a cluster's policy in a real browser, under a strict CSP (no inline anything).
warnWithoutChromium('the policy UI browser test');

describe.skipIf(!HAS_CHROMIUM)('the policy UI in a real browser', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    await t.app.get(PolicyReconciler).whenStartupRebuildDone();
    const api = await t.as('admin');
    for (const [title, cluster] of [['Diary', 'personal'], ['Trip', 'personal'], ['Install', 'docs']]) {
      await api.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\nAbout ${title}.\n` }).expect(201);
    }
    await t.dataSource.query(`INSERT INTO kg_content_chunks (page_id, position, text, content_hash) SELECT id, 1, 'x', 'h' FROM pages WHERE slug = 'diary'`);
    browser = await launchBrowser({ strictCspFor: t.baseUrl, viewport: { width: 1280, height: 900 } });
    page = await browser.tab();
    const admin = await t.user('admin', { name: 'Barbara' });
    await page.goto(`${t.baseUrl}/admin/kg-policy`);
    await page.waitForURL(/\/login\?next=%2Fadmin%2Fkg-policy$/);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/admin\/kg-policy$/);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('decides a pending cluster: estimate first, then confirm', async () => {
    await page.screenshot({ path: path.join(SCREENSHOTS, 'kg-policy-dashboard.png'), fullPage: true });
    // The clusters without a policy are grouped, each name leading to its page (row actions sit beside it).
    await page.getByRole('link', { name: 'docs', exact: true }).click();
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
    expect(browser.cspViolations).toEqual([]);
  });
});
