// @module-tag slow (drives Chromium): `npm run test:fast` leaves it out; docs/testing.md
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchBrowser, warnWithoutChromium, type TestBrowser } from '../support/browser.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// The header search box suggesting titles as the reader types, in a real browser (Debian's chromium).
warnWithoutChromium('the search box browser test');

describe.skipIf(!HAS_CHROMIUM)('header search box title suggestions', () => {
  let t: TestApp;
  let browser: TestBrowser;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Compost Guide', body: 'Heaps.' }).expect(201);
    await author.post('/api/pages').send({ title: 'Composting in Winter', body: 'Cold heaps. See [[Compost Guide]].' }).expect(201);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('fills a datalist with matching titles, without CSP violations or page errors', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${t.baseUrl}/search`);
    await page.fill('#site-search', 'compo');
    await page.waitForFunction(() => document.querySelectorAll('#site-search-titles option').length === 2);
    const titles = await page.$$eval('#site-search-titles option', (options) => options.map((o) => (o as HTMLOptionElement).value));
    expect(titles).toEqual(['Compost Guide', 'Composting in Winter']);
    expect(await page.getAttribute('#site-search', 'list')).toBe('site-search-titles');
    expect(errors).toEqual([]);
  });

  it('shows results with filters and a "why this result" that opens without script, with no CSP violations', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    // JavaScript off: <details> is HTML's own disclosure widget.
    await page.route('**/*.js', (route) => route.abort());
    await page.goto(`${t.baseUrl}/search?q=winter%20heaps`);
    await expect.poll(() => page.locator('.search-hit h2 a').first().textContent()).toBe('Composting in Winter');
    const why = page.locator('.why-result').first();
    expect(await why.locator('ul').isVisible()).toBe(false);
    await why.locator('summary').click();
    expect(await why.locator('ul').isVisible()).toBe(true);
    expect(await why.locator('ul').textContent()).toMatch(/#1 by words .*Matched words: .*winter/);
    // The filters sit in the same form and keep their values.
    await page.locator('.search-filters summary').click();
    await page.fill('#search-cluster', 'nowhere');
    await page.locator('.search-page-form button[type=submit]').click();
    await page.waitForURL(/cluster=nowhere/);
    expect(await page.locator('.no-results').textContent()).toContain('with these filters');
    expect(await page.inputValue('#search-cluster')).toBe('nowhere');
    expect(errors.filter((e) => !e.includes('net::ERR_FAILED'))).toEqual([]);
  });
});
