// @module-tag slow (drives Chromium): `npm run test:fast` leaves it out; docs/testing.md
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchBrowser, SCREENSHOTS, warnWithoutChromium, type TestBrowser } from '../support/browser.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// A reader's journey through the wiki in a real browser (Debian's chromium driven by playwright-core), every page
// served under a strict CSP (no inline scripts, styles or event handlers anywhere).
warnWithoutChromium('the wiki journey browser test');

describe.skipIf(!HAS_CHROMIUM)('wiki journey in a real browser', () => {
  let t: TestApp;
  let browser: TestBrowser;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    browser = await launchBrowser({ strictCspFor: t.baseUrl, viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const newPage = (): Promise<Page> => browser.tab();

  it('logs in through the login form and comes back to where it was going', async () => {
    const ada = await t.user('author', { name: 'Ada' });
    const page = await newPage();
    await page.goto(`${t.baseUrl}/page/new`);
    await page.waitForURL(/\/login\?next=%2Fpage%2Fnew$/);
    await page.getByLabel('Email').fill(ada.email);
    await page.getByLabel('Password').fill(ada.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/page\/new$/);
    expect(await page.locator('.user-nav').textContent()).toContain('Ada');
  });

  it('creates a page with a missing link, follows it to create that page, and sees the link resolve and the backlink appear', async () => {
    const page = await newPage();
    await page.goto(`${t.baseUrl}/`);
    await page.getByRole('link', { name: 'New page' }).first().click();
    await page.waitForURL(/page\/new$/);

    await page.getByLabel('Title').fill('Journey Start');
    await page.getByLabel('Text (Markdown)').fill('# Journey\n\nWe still need [[Missing Page]] written.\n');
    // The live preview marks the link as missing before anything is saved.
    await expect.poll(() => page.locator('[data-preview-output] a.wikilink-missing').count(), { timeout: 5000 }).toBe(1);
    await page.getByRole('button', { name: 'Create page' }).click();
    await page.waitForURL(/page\/journey\-start\?notice=created$/);

    const missing = page.locator('.page-body a.wikilink-missing', { hasText: 'Missing Page' });
    await expect.poll(() => missing.count()).toBe(1);
    const colour = await missing.evaluate((a) => getComputedStyle(a).color);
    const decoration = await missing.evaluate((a) => getComputedStyle(a).textDecorationStyle);
    expect(colour).toBe('rgb(180, 35, 24)');
    expect(decoration).toBe('dashed');

    await missing.click();
    await page.waitForURL(/page\/new\?title=Missing%20Page$/);
    expect(await page.getByLabel('Title').inputValue()).toBe('Missing Page');
    await page.getByLabel('Text (Markdown)').fill('Now I exist. Back to [[Journey Start]].');
    await page.getByLabel('Summary of this change').fill('Written from a wanted link');
    await page.getByRole('button', { name: 'Create page' }).click();
    await page.waitForURL(/page\/missing\-page\?notice=created$/);

    // The new page lists the first one among its backlinks.
    const backlinks = page.locator('.backlinks');
    expect(await backlinks.getByRole('link', { name: 'Journey Start' }).count()).toBe(1);

    // Back on the first page, the link now resolves.
    await page.goto(`${t.baseUrl}/page/journey-start`);
    const resolved = page.locator('.page-body a.wikilink', { hasText: 'Missing Page' });
    expect(await resolved.getAttribute('href')).toBe('/page/missing-page');
    expect(await resolved.getAttribute('class')).toBe('wikilink');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'page-view-desktop.png'), fullPage: true });
  });

  it('edits with a live preview and keeps both texts on a conflict', async () => {
    const page = await newPage();
    await page.goto(`${t.baseUrl}/page/journey-start/edit`);
    const editor = page.getByLabel('Text (Markdown)');
    await editor.fill('## One\n\nSee [[Missing Page]].\n\n## Two\n\nAnd [[Not Yet Written]].');
    const preview = page.locator('[data-preview-output]');
    await expect.poll(() => preview.locator('h2#two').count(), { timeout: 5000 }).toBe(1);
    expect(await preview.locator('a.wikilink[href="/page/missing-page"]').count()).toBe(1);
    expect(await preview.locator('a.wikilink-missing').count()).toBe(1);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'edit-desktop.png'), fullPage: true });

    // Someone else saves first, through the API.
    const current = (await t.http.get('/api/pages/journey-start')).body as { version: number };
    const bob = await t.as('author', { name: 'Bob' });
    const other = await bob.put('/api/pages/journey-start').send({ body: 'Their version.', baseVersion: current.version });
    expect(other.status).toBe(200);

    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForLoadState('domcontentloaded');
    expect(await page.locator('h1').textContent()).toContain('Edit conflict');
    expect(await page.locator('textarea#body').inputValue()).toContain('And [[Not Yet Written]].');
    expect(await page.locator('textarea#theirs').inputValue()).toBe('Their version.');
    expect(await page.locator('.conflict-theirs h2').textContent()).toContain('by Bob');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'conflict-desktop.png'), fullPage: true });
    await page.getByRole('button', { name: 'Save merged text' }).click();
    await page.waitForURL(/page\/journey\-start\?notice=saved$/);
  });

  it('draws the page graph with clickable nodes', async () => {
    const page = await newPage();
    await page.goto(`${t.baseUrl}/page/missing-page/graph`);
    const canvas = page.locator('.graph-canvas');
    await expect.poll(() => canvas.isVisible(), { timeout: 5000 }).toBe(true);
    await expect.poll(() => canvas.locator('canvas').count(), { timeout: 5000 }).toBeGreaterThan(0);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'graph-desktop.png') });
    // The list stays for readers without the canvas.
    expect(await page.locator('.graph-list').getByRole('link', { name: 'Journey Start' }).count()).toBe(1);
  });

  it('fits a phone screen (375px) without horizontal scrolling', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 375, height: 812 });
    for (const [name, url] of [['page-view-phone', '/page/journey-start'], ['home-phone', '/'], ['history-phone', '/page/journey-start/history'], ['edit-phone', '/page/journey-start/edit']] as const) {
      await page.goto(`${t.baseUrl}${url}`);
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
      expect(scrollWidth, `${url} scrolls sideways on a phone`).toBeLessThanOrEqual(clientWidth);
    }
    await page.close();
  });

  it('ran under a strict Content-Security-Policy without violations or script errors', () => {
    expect(browser.cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
