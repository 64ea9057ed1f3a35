// @module-tag slow (drives Chromium): `npm run test:fast` leaves it out; docs/testing.md
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterReviewAction, HAS_CHROMIUM, launchBrowser, logInThroughForm, SCREENSHOTS, warnWithoutChromium, type TestBrowser } from '../support/browser.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

// An admin's review session in a real browser (Debian's chromium driven by playwright-core), with the keyboard.
warnWithoutChromium('the review session browser test');

describe.skipIf(!HAS_CHROMIUM)('a review session in a real browser', () => {
  let t: TestApp;
  let kg: KgFactory;
  let browser: TestBrowser;
  let admin: TestUser;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    kg = await KgFactory.for(t);
    admin = await t.user('admin', { name: 'Ada' });
    const tools = await kg.passage('Tooling', 'We store everything in Postgre SQL. Ruby runs the scripts. Lorem Tech is filler.', { headingPath: ['Storage'] });
    const people = await kg.passage('People', 'Grace Hopper and Linus Torvalds are people, not tools.');
    ids.postgresql = await kg.nodeProposal({ name: 'Postgre SQL', type: 'technology', confidence: 0.95, support: [{ ...tools, quote: 'Postgre SQL' }] });
    ids.lorem = await kg.nodeProposal({ name: 'Lorem Tech', type: 'technology', confidence: 0.8, support: [{ ...tools, quote: 'Lorem Tech is filler' }] });
    ids.ruby = await kg.nodeProposal({ name: 'Ruby', type: 'technology', confidence: 0.6, support: [{ ...tools, quote: 'Ruby runs the scripts' }] });
    ids.grace = await kg.nodeProposal({ name: 'Grace Hopper', type: 'person', confidence: 0.99, support: [{ ...people, quote: 'Grace Hopper' }] });
    ids.linus = await kg.nodeProposal({ name: 'Linus Torvalds', type: 'person', confidence: 0.97, support: [{ ...people, quote: 'Linus Torvalds' }] });
    // An entity approved earlier under another name: the one the admin merges.
    ids.postgres = await kg.node({ name: 'Postgres', type: 'technology', aliases: ['PG'] });
    await kg.mention(tools.chunkId, 'postgres|technology', 'Postgres', ids.postgres);

    browser = await launchBrowser({ strictCspFor: t.baseUrl, viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const tab = (): Promise<Page> => browser.tab();

  const logIn = (page: Page, user: TestUser, next: string) => logInThroughForm(page, t.baseUrl!, user, next);
  const leadsTo = afterReviewAction;

  const status = async (id: string) => ((await t.dataSource.query('SELECT status FROM kg_proposals WHERE id = $1', [id])) as { status: string }[])[0].status;
  const current = (page: Page) => page.locator('.kg-card.is-current .kg-card-title').textContent();

  it('filters the queue', async () => {
    const page = await tab();
    await logIn(page, admin, '/admin/knowledge-graph');
    await page.waitForURL(/\/admin\/knowledge-graph$/);
    expect(await page.locator('.kg-card').count()).toBe(5);
    await page.locator('.kg-filter-panel > summary').click();
    await page.locator('#f-type').selectOption('technology');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/type=technology/);
    const titles = await page.locator('.kg-card .kg-name').allTextContents();
    expect(titles).toEqual(['Postgre SQL', 'Lorem Tech', 'Ruby']);
    // The evidence: the quote highlighted in its passage, linked to its place in the page.
    expect(await page.locator(`#p-${ids.postgresql} mark`).first().textContent()).toBe('Postgre SQL');
    expect(await page.locator(`#p-${ids.postgresql} .kg-evidence footer a`).first().getAttribute('href')).toBe('/page/tooling#storage');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'review-queue.png'), fullPage: true });
  });

  it('edits a proposal and approves it with the keyboard (e, then Enter)', async () => {
    const page = await tab();
    expect(await current(page)).toContain('Postgre SQL');
    await page.keyboard.press('e');
    const name = page.locator(`#name-${ids.postgresql}`);
    await expect.poll(() => name.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('PostgreSQL');
    await leadsTo(page, () => page.keyboard.press('Enter'));
    expect(await page.locator('.kg-done').textContent()).toContain('Approved node “PostgreSQL” (technology) (edited) as a new entity.');
    expect(await status(ids.postgresql)).toBe('approved');
    // The next proposal is the current one now.
    expect(await current(page)).toContain('Lorem Tech');
  });

  it('moves with j and k, and rejects one with a reason (r, type, Enter)', async () => {
    const page = await tab();
    await page.keyboard.press('j');
    expect(await current(page)).toContain('Ruby');
    await page.keyboard.press('k');
    expect(await current(page)).toContain('Lorem Tech');
    await page.keyboard.press('r');
    const reason = page.locator(`#reason-${ids.lorem}`);
    await expect.poll(() => reason.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('filler, not a technology');
    await leadsTo(page, () => page.keyboard.press('Enter'));
    expect(await page.locator('.kg-done').textContent()).toContain('Rejected node “Lorem Tech” (technology) (“filler, not a technology”)');
    expect(await status(ids.lorem)).toBe('rejected');
    expect(await page.locator('.kg-card .kg-name').allTextContents()).toEqual(['Ruby']);
  });

  it('merges two entities, sees the neighbourhood graph, and undoes the merge', async () => {
    const page = await tab();
    await page.getByRole('link', { name: 'Entities' }).click();
    await page.getByRole('link', { name: 'Postgres', exact: true }).click();
    await page.waitForURL(new RegExp(`/ui/entities/${ids.postgres}$`));
    await page.getByRole('link', { name: 'Merge into another…' }).click();
    await page.getByLabel('Find the entity to keep').fill('PostgreSQL');
    await page.getByRole('button', { name: 'Find' }).click();
    await leadsTo(page, () => page.getByRole('button', { name: 'Merge “Postgres” into “PostgreSQL”' }).click());
    expect(await page.locator('.kg-done').textContent()).toContain('Merged “Postgres” (technology) into “PostgreSQL” (technology)');
    expect(await page.locator('.page-facts').textContent()).toContain('Postgres');
    expect(await t.dataSource.query('SELECT 1 FROM kg_nodes WHERE id = $1', [ids.postgres])).toHaveLength(0);
    // The neighbourhood graph draws (co-mentions with Ruby? not approved yet; at least the merged entity's own).
    await page.screenshot({ path: path.join(SCREENSHOTS, 'review-entity-merged.png'), fullPage: true });

    await leadsTo(page, () => page.getByRole('button', { name: 'Undo' }).click());
    expect(await page.locator('.kg-done').textContent()).toMatch(/Undid #\d+: Merged “Postgres”/);
    expect(await t.dataSource.query('SELECT name, aliases FROM kg_nodes WHERE id = $1', [ids.postgres])).toEqual([{ name: 'Postgres', aliases: ['PG'] }]);
    const merged = (await t.dataSource.query(`SELECT aliases FROM kg_nodes WHERE signature = 'postgresql|technology'`)) as { aliases: string[] }[];
    expect(merged[0].aliases).toEqual(['Postgre SQL']);
    // The history lists the merge as undone, and the undo with its Redo button.
    await page.getByRole('link', { name: 'History and undo' }).click();
    expect(await page.locator('tr.kg-undone').first().textContent()).toContain('Merged “Postgres”');
    expect(await page.getByRole('button', { name: 'Redo' }).count()).toBe(1);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'review-history.png'), fullPage: true });
  });

  it('draws an entity’s neighbourhood with cytoscape, filterable by predicate', async () => {
    const page = await tab();
    const ruby = (await t.as('admin', { name: 'Ada' })).post(`/admin/knowledge-graph/proposals/${ids.ruby}/approve`).send({});
    const rubyId = (await ruby).body.items[0].nodeId as string;
    const pg = ((await t.dataSource.query(`SELECT id::text AS id FROM kg_nodes WHERE signature = 'postgresql|technology'`)) as { id: string }[])[0].id;
    await kg.edge(rubyId, pg, 'uses');
    await page.goto(`${t.baseUrl}/admin/knowledge-graph/ui/entities/${pg}`);
    const graph = page.locator('[data-kg-graph]');
    await expect.poll(() => graph.getAttribute('data-graph-ready')).toBe('3');
    await page.locator('[data-graph-filter]').selectOption('uses');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'review-entity-graph.png') });
  });

  it('refuses a reader who opens /admin/knowledge-graph', async () => {
    const page = await tab();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/$|\/login/);
    const reader = await t.user('reader', { name: 'Rita' });
    await logIn(page, reader, '/admin/knowledge-graph');
    await page.waitForURL(/\/admin\/knowledge-graph$/);
    expect(await page.locator('h1').textContent()).toContain('403');
    const response = await page.goto(`${t.baseUrl}/admin/knowledge-graph`);
    expect(response?.status()).toBe(403);
  });

  it('shows the reader an entity’s own page, and walks its relations from there', async () => {
    const page = await tab(); // still the reader of the test before
    const pg = ((await t.dataSource.query(`SELECT id::text AS id FROM kg_nodes WHERE signature = 'postgresql|technology'`)) as { id: string }[])[0].id;
    const response = await page.goto(`${t.baseUrl}/entities/${pg}`);
    expect(response?.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toContain('PostgreSQL');
    expect(await page.locator('.entity-admin-link').count()).toBe(0);
    await page.locator('.entity-relations').getByRole('link', { name: 'Ruby' }).click();
    await page.waitForURL(/\/entities\/\d+$/);
    expect(await page.locator('h1').textContent()).toContain('Ruby');
    expect(await page.locator('.entity-relations').textContent()).toMatch(/uses\s+PostgreSQL/);
    expect(await page.locator('.entity-mentions').textContent()).toContain('Tooling');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'reader-entity.png'), fullPage: true });
  });

  it('had no CSP violation and no script error anywhere', () => {
    expect(browser.cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
