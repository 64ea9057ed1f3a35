// @module-tag slow (drives Chromium): `npm run test:fast` leaves it out; docs/testing.md
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterReviewAction, HAS_CHROMIUM, launchBrowser, logInThroughForm, SCREENSHOTS, warnWithoutChromium, type TestBrowser } from '../support/browser.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

// Triage in a real browser (issue 22 item 5): an admin opens a group of the queue, reads its dry run, unticks what the
// group got wrong, confirms its one action, and reviews what is left one at a time with the keyboard. (How much time
// triage saves is measured by `npm run bench:review-time`, docs/review.md.)
warnWithoutChromium('the triage browser test');

const BASE = '/admin/knowledge-graph';

describe.skipIf(!HAS_CHROMIUM)('triage of the review queue in a real browser', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let admin: TestUser;
  let page: Page;
  const ids: Record<string, string> = {};
  const nodes: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    const kg = await KgFactory.for(t);
    admin = await t.user('admin', { name: 'Grace' });
    // "folder" and "preview" are ordinary words of this wiki (lower case in running text); "Markdown" is a name.
    const passage = await kg.passage('Working With Notes', 'Each folder holds notes. Open the folder to see a preview. Markdown files live in a folder; Markdown is plain text.');
    await kg.page('More Notes', { body: 'Move a note to another folder. The preview updates. Write Markdown, and the preview shows it.' });
    const support = [{ ...passage, quote: 'folder' }];
    nodes.canvas = await kg.node({ name: 'Canvas', type: 'product' });
    nodes.excalidraw = await kg.node({ name: 'Excalidraw', type: 'product', aliases: ['Whiteboard'] });
    ids.canvas = await kg.nodeProposal({ name: 'canvas', type: 'concept', confidence: 0.7, signals: ['properNoun'], support });
    ids.whiteboard = await kg.nodeProposal({ name: 'whiteboard', type: 'concept', confidence: 0.66, signals: ['heading'], support });
    ids.folder = await kg.nodeProposal({ name: 'Folder', type: 'concept', confidence: 0.62, signals: ['heading', 'repeat×1'], support });
    ids.preview = await kg.nodeProposal({ name: 'preview', type: 'concept', confidence: 0.61, signals: ['nounPhrase'], support });
    ids.markdown = await kg.nodeProposal({ name: 'Markdown', type: 'technology', confidence: 0.7, signals: ['properNoun'], support });
    browser = await launchBrowser({ strictCspFor: t.baseUrl, viewport: { width: 1280, height: 900 } });
    page = await browser.tab();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const status = async (id: string) => ((await t.dataSource.query('SELECT status FROM kg_proposals WHERE id = $1', [id])) as { status: string }[])[0].status;
  const chips = () => page.locator('.kg-triage-group').evaluateAll((links) => links.map((a) => [a.getAttribute('data-triage'), a.textContent?.replace(/\s+/g, ' ').trim()]));

  const leadsTo = (act: () => Promise<void>) => afterReviewAction(page, act);

  it('shows the queue with its triage groups above the cards', async () => {
    await logInThroughForm(page, t.baseUrl!, admin, BASE);
    expect(await chips()).toEqual([
      ['same-as-approved', 'Probably the same as an approved entity (2)'],
      ['generic-words', 'Likely noise: generic word (2)'],
    ]);
    expect(await page.locator('.kg-card').count()).toBe(5);
  });

  it('previews a group, leaves out what it got wrong, and rejects the rest in one action', async () => {
    await page.locator('.kg-triage-group[data-triage="generic-words"]').click();
    await page.waitForURL((url) => url.pathname === `${BASE}/ui/triage/generic-words`);
    const lines = page.locator('.kg-triage-items li');
    expect(await lines.count()).toBe(2);
    expect(await page.locator('.kg-triage-items').textContent()).toMatch(/preview[\s\S]*Folder/);
    // The admin thinks "Folder" is a feature of this wiki after all: it stays in the queue.
    await page.locator(`input[name="ids"][value="${ids.folder}"]`).uncheck();
    await page.getByLabel('Reason (optional)').fill('a common word here');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'review-triage-preview.png'), fullPage: true });
    await leadsTo(() => page.locator('[data-triage-confirm]').click());
    expect(page.url()).toContain(BASE);
    expect(await status(ids.preview)).toBe('rejected');
    expect(await status(ids.folder)).toBe('pending');
    expect(await page.locator('.kg-done').textContent()).toMatch(/reject/i);
    // What the admin unticked is still in its group, and in the queue.
    expect(await chips()).toEqual([
      ['same-as-approved', 'Probably the same as an approved entity (2)'],
      ['generic-words', 'Likely noise: generic word (1)'],
    ]);
  });

  it('approves a group into the approved entities it names, as its dry run said', async () => {
    await page.locator('.kg-triage-group[data-triage="same-as-approved"]').click();
    await page.waitForURL((url) => url.pathname === `${BASE}/ui/triage/same-as-approved`);
    expect(await page.locator('.kg-change').allTextContents()).toEqual([
      expect.stringContaining('“Canvas” (product)'),
      expect.stringContaining('“Excalidraw” (product), whose alias it is'),
    ]);
    await leadsTo(() => page.locator('[data-triage-confirm]').click());
    expect(await status(ids.canvas)).toBe('approved');
    expect(await status(ids.whiteboard)).toBe('approved');
    expect(await chips()).toEqual([['generic-words', 'Likely noise: generic word (1)']]);
  });

  it('reviews what is left one at a time with the keyboard', async () => {
    expect(await page.locator('.kg-card .kg-name').allTextContents()).toEqual(['Markdown', 'Folder']);
    await leadsTo(() => page.keyboard.press('a'));
    expect(await status(ids.markdown)).toBe('approved');
    await page.keyboard.press('r');
    await page.keyboard.type('too generic after all');
    await leadsTo(() => page.keyboard.press('Enter'));
    expect(await status(ids.folder)).toBe('rejected');
    expect(await page.locator('.kg-card').count()).toBe(0);
    expect(await chips()).toEqual([]);
  });

  it('had no CSP violation and no script error anywhere', () => {
    expect(browser.cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
