// @module-tag slow (drives Chromium): `npm run test:fast` leaves it out; docs/testing.md
import path from 'node:path';
import type { Page } from 'playwright-core';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchBrowser, SCREENSHOTS, warnWithoutChromium, type TestBrowser } from '../support/browser.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { OBSIDIAN_XSS_PAYLOADS } from '../support/xss-payloads.js';

// Obsidian syntax in a real browser, under a strict CSP: a transcluded section, a callout on a phone, a Mermaid
// diagram drawn by the browser, and hostile input in the new syntax that must never run.
warnWithoutChromium('the Obsidian syntax browser test');

describe.skipIf(!HAS_CHROMIUM)('Obsidian syntax in a real browser', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let author: supertest.Agent;

  const create = (title: string, body: string) => author.post('/api/pages').send({ title, body }).expect(201);

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    author = await t.as('author');
    browser = await launchBrowser({ strictCspFor: t.baseUrl, viewport: { width: 1280, height: 900 } });
    await create('Glossary', '# Glossary\n\n## Orchard\n\nAn orchard is a planted grove of fruit trees.\n\n## Meadow\n\nA meadow is open grassland.\n');
    await create('Digest', '# Digest\n\n![[Glossary#Orchard]]\n');
    await create('Callouts', [
      '> [!warning] A warning with a long title that has to wrap on a narrow phone screen somewhere',
      '> Averyveryverylongwordwithoutanyspacesthatwouldpushthecalloutwiderthanthescreenifnothingbrokeit and `some inline code that is long too`.',
      '',
      '> [!tip]- Folded until opened',
      '> The hidden part.',
      '',
      '$$',
      '\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2} + \\int_0^1 x^2 \\, dx + \\prod_{k=1}^{m} (1 + a_k)',
      '$$',
    ].join('\n'));
    await create('Showcase', [
      '# Showcase #demo', '', 'Some ==highlighted== text with a footnote[^1] and $e^{i\\pi} + 1 = 0$. Tagged #garden/roses.', '',
      '> [!note] A note', '> With **bold** and a [[Glossary]] link.', '', '> [!danger]+ Open danger', '> Careful.', '',
      '- [x] Done task', '- [ ] Open task ^task-1', '', '![[Glossary#Meadow]]', '', '[^1]: The footnote.',
    ].join('\n'));
    await create('Diagram', '```mermaid\ngraph TD\n  Pick --> Sort\n  Sort --> Press\n```\n');
    await create('Hostile', OBSIDIAN_XSS_PAYLOADS.join('\n\n'));
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const newPage = (): Promise<Page> => browser.tab();

  it('shows an embedded section inline, with a link to its source', async () => {
    const violationsBefore = browser.cspViolations.length;
    const page = await newPage();
    await page.goto(`${t.baseUrl}/page/digest`);
    const embed = page.locator('.page-body .transclusion');
    await expect.poll(() => embed.count()).toBe(1);
    expect(await embed.locator('.transclusion-content').innerText()).toContain('An orchard is a planted grove of fruit trees.');
    expect(await embed.locator('.transclusion-content').innerText()).not.toContain('meadow');
    expect(await embed.isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'transclusion-desktop.png'), fullPage: true });
    await embed.getByRole('link', { name: 'Glossary › Orchard' }).click();
    await page.waitForURL(/\/page\/glossary#orchard$/);
    expect(browser.cspViolations.slice(violationsBefore)).toEqual([]);
  });

  it('fits callouts and display math on a phone screen (390×844) without horizontal scrolling; a folded callout opens without JavaScript', async () => {
    const violationsBefore = browser.cspViolations.length;
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.baseUrl}/page/callouts`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'callout-phone.png'), fullPage: true });
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    const box = await page.locator('.callout[data-callout="warning"]').boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    const folded = page.locator('details.callout[data-callout="tip"]');
    expect(await folded.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.getByText('The hidden part.').isVisible()).toBe(false);
    await folded.locator('summary').click();
    expect(await page.getByText('The hidden part.').isVisible()).toBe(true);
    await page.close();
    expect(browser.cspViolations.slice(violationsBefore)).toEqual([]);
  });

  it('shows the Obsidian syntax together on a desktop screen', async () => {
    const page = await newPage();
    await page.goto(`${t.baseUrl}/page/showcase`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'obsidian-showcase-desktop.png'), fullPage: true });
    expect(await page.locator('.page-body mark').innerText()).toBe('highlighted');
    expect(await page.locator('.page-body details.callout[open] summary').innerText()).toContain('Open danger');
    expect(await page.locator('.page-body > section.footnotes li').innerText()).toContain('The footnote.');
    expect(await page.locator('.page-body .transclusion .footnotes').count()).toBe(0);
    expect(await page.locator('.page-body math').count()).toBe(1);
    expect(await page.locator('.page-body input[type="checkbox"]:checked').count()).toBe(1);
    expect(await page.locator('.page-body .transclusion-content').innerText()).toContain('A meadow is open grassland.');
  });

  it('draws a Mermaid block as a diagram (the bundle served by Kurate itself)', async () => {
    const violationsBefore = browser.cspViolations.length;
    const page = await newPage();
    await page.goto(`${t.baseUrl}/page/diagram`);
    const svg = page.locator('.page-body .mermaid-diagram svg');
    await expect.poll(() => svg.count(), { timeout: 20_000 }).toBe(1);
    expect(await page.locator('.page-body svg').innerHTML()).toContain('Press');
    expect(await page.locator('.page-body pre').isHidden()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'mermaid-desktop.png'), fullPage: true });
    // Mermaid's layout step tries inline styles while it measures; the policy refuses them (the drawn diagram is
    // styled through the CSS object model instead). Nothing else may be refused.
    expect(browser.cspViolations.slice(violationsBefore).filter((v) => !/^Applying inline style violates/.test(v))).toEqual([]);
  });

  it('runs none of the hostile input written in Obsidian syntax', async () => {
    const page = await newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const violationsBefore = browser.cspViolations.length;
    await page.goto(`${t.baseUrl}/page/hostile`);
    await page.locator('.page-body').waitFor();
    // Hover and click everything a payload could hang a handler on, and open every folded callout.
    for (const element of await page.locator('.page-body a, .page-body summary, .page-body input, .page-body .callout-title').all()) {
      await element.hover({ timeout: 1000 }).catch(() => undefined);
    }
    for (const summary of await page.locator('.page-body summary').all()) await summary.click({ timeout: 1000 }).catch(() => undefined);
    expect(dialogs).toEqual([]);
    // A handler, script or style that survived sanitising would show here as a refusal of the policy.
    expect(browser.cspViolations.slice(violationsBefore)).toEqual([]);
    expect(await page.locator('.page-body script, .page-body iframe, .page-body [onerror], .page-body [onclick], .page-body [onmouseover]').count()).toBe(0);
  });

  it('ran without script errors', () => {
    expect(browser.pageErrors).toEqual([]);
  });
});
