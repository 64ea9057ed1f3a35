// @module-tag slow (drives Chromium): `npm run test:fast` leaves it out; docs/testing.md
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchBrowser, SCREENSHOTS, warnWithoutChromium, type TestBrowser } from '../support/browser.js';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

// The layout aims of the admin and author screens (issue 21, part 2), measured in Debian's chromium: what a screen
// shows above the fold at 1280×800, no sideways scrolling at 390 px, inputs styled alike, the editor's Save in view,
// keyboard review keeping its place, and a page graph of 60 neighbours whose labels do not pile up.
warnWithoutChromium('the screens browser test');

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

describe.skipIf(!HAS_CHROMIUM)('admin and author screens in a real browser', () => {
  let t: TestApp;
  let desktop: TestBrowser;
  let phone: TestBrowser;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    desktop = await launchBrowser({ strictCspFor: t.baseUrl, viewport: DESKTOP });
    phone = await launchBrowser({ strictCspFor: t.baseUrl, viewport: PHONE });
  });

  afterAll(async () => {
    await desktop?.close();
    await phone?.close();
    await t?.close();
  });

  const shot = (page: Page, name: string, fullPage = false) => page.screenshot({ path: path.join(SCREENSHOTS, `screens-${name}.png`), fullPage });

  /** What makes an input look like the others: its box and its type. */
  const inputLook = (page: Page, selector: string) =>
    page.locator(selector).evaluate((el) => {
      const s = getComputedStyle(el);
      const box = el.getBoundingClientRect();
      return {
        fontFamily: s.fontFamily, fontSize: s.fontSize, paddingTop: s.paddingTop, paddingLeft: s.paddingLeft,
        borderTopWidth: s.borderTopWidth, borderTopColor: s.borderTopColor, borderRadius: s.borderTopLeftRadius, height: Math.round(box.height), width: Math.round(box.width),
      };
    });

  // Before any account exists: /setup is only there until the first admin.
  it('styles the setup and login boxes like every other input (size and font)', async () => {
    const page = await desktop.tab();
    await page.goto(`${t.baseUrl}/setup`);
    const reference = await inputLook(page, '#setup-name'); // a text input, styled since the first round
    for (const selector of ['#setup-email', '#setup-password', '#setup-password2']) {
      const look = await inputLook(page, selector);
      expect(look, selector).toEqual(reference);
    }
    expect(reference.width).toBeGreaterThan(300);
    expect(reference.height).toBeGreaterThan(30);
    await shot(page, 'setup');

    await page.goto(`${t.baseUrl}/login`);
    // Measured unfocused (the focused box has the focus colour). The email box has autofocus, which the browser may
    // apply after the load event (on a busy CI machine it came after the blur once): wait for it, then blur.
    await page.waitForFunction(() => document.activeElement?.id === 'login-email', undefined, { timeout: 5000 }).catch(() => undefined);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const search = await inputLook(page, '#site-search');
    for (const selector of ['#login-email', '#login-password']) {
      const look = await inputLook(page, selector);
      // The same font, padding, border and height as the header's search box; full width of the form.
      expect({ ...look, width: 0 }, selector).toEqual({ ...search, width: 0 });
      expect(look.width).toBeGreaterThan(300);
    }
    await shot(page, 'login');
  });

  describe('with a wiki and a review queue', () => {
    let kg: KgFactory;
    let admin: TestUser;
    const proposals: string[] = [];

    async function logIn(browser: TestBrowser, user: TestUser): Promise<Page> {
      const page = await browser.tab();
      await page.goto(`${t.baseUrl}/login`);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL((url) => !url.pathname.startsWith('/login'));
      return page;
    }

    beforeAll(async () => {
      kg = await KgFactory.for(t);
      admin = await t.user('admin', { name: 'Admin' });
      // 20 proposals, each with a passage of ordinary length quoted from a page of its own.
      for (let i = 0; i < 20; i++) {
        const name = `Entity Number ${i + 1}`;
        const text = `Section ${i + 1} of the handbook explains how ${name} works with the rest of the system, which parts of the `
          + `deployment depend on it, and what an operator should check before changing its configuration in production.`;
        const passage = await kg.passage(`Handbook ${i + 1}`, text, { headingPath: ['Overview'] });
        // With the signals the built-in extractor records for every proposal: each card has its "Why" line.
        proposals.push(await kg.nodeProposal({
          name, type: 'technology', confidence: 0.99 - i * 0.01, rawConfidence: 0.9 - i * 0.01, signals: ['properNoun', 'heading', 'repeat×2'], support: [{ ...passage, quote: name }],
        }));
      }
      // Clusters for the policy page: two decided, a dozen without a policy.
      const api = await t.as('admin', { name: 'Policy Admin' });
      for (const cluster of ['docs', 'guides', ...Array.from({ length: 12 }, (_, i) => `team-${i + 1}`)]) {
        await api.post('/api/pages').send({ title: `Page of ${cluster}`, body: `---\ncluster: ${cluster}\n---\nAbout ${cluster}.` }).expect(201);
      }
      await api.put('/admin/kg-policy/clusters/docs').send({ action: 'include', reason: 'public documentation for everyone' }).expect(200);
      await api.put('/admin/kg-policy/clusters/guides').send({ action: 'exclude', reason: 'drafts, not ready' }).expect(200);
    });

    it('shows at least 5 proposals with their evidence above the fold at 1280×800, filters in one line', async () => {
      const page = await logIn(desktop, admin);
      await page.goto(`${t.baseUrl}/admin/knowledge-graph`);
      expect(await page.locator('.kg-card').count()).toBe(20);
      // A card counts when its head and its first passage (with the link to its page) are inside the window.
      const visible = await page.locator('.kg-card').evaluateAll((cards) =>
        cards.filter((card) => {
          const evidence = card.querySelector('.kg-evidence');
          if (!evidence) return false;
          const box = card.getBoundingClientRect();
          return box.top >= 0 && evidence.getBoundingClientRect().bottom <= window.innerHeight;
        }).length,
      );
      expect(visible).toBeGreaterThanOrEqual(5);
      // The filters are one line: the toolbar is no taller than a button row.
      const toolbar = await page.locator('.kg-toolbar').boundingBox();
      expect(toolbar!.height).toBeLessThan(60);
      await shot(page, 'review-queue-1280');
    });

    it('filters from the folded panel and removes a filter with its chip', async () => {
      const page = await desktop.tab();
      await page.locator('.kg-filter-panel > summary').click();
      await page.locator('#f-min').fill('0.9');
      await shot(page, 'review-filters-open');
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.waitForURL(/minConfidence=0\.9/);
      expect(await page.locator('.kg-chip').allTextContents()).toEqual([expect.stringContaining('confidence ≥ 0.9')]);
      expect(await page.locator('.kg-filter-panel').getAttribute('open')).toBeNull();
      expect(await page.locator('.kg-card').count()).toBe(10);
      await page.locator('.kg-chip').click();
      await page.waitForURL((url) => !url.search.includes('minConfidence'));
      expect(await page.locator('.kg-chip').count()).toBe(0);
      expect(await page.locator('.kg-card').count()).toBe(20);
    });

    it('keeps its place after approve (a) and reject (r, Enter): the next proposal, current and focused, at the same height', async () => {
      const page = await desktop.tab();
      await page.keyboard.press('j');
      await page.keyboard.press('j');
      const current = () => page.locator('.kg-card.is-current').getAttribute('data-proposal');
      expect(await current()).toBe(proposals[2]);
      const top = async () => (await page.locator('.kg-card.is-current').boundingBox())!.y;
      const before = await top();
      const scrollBefore = await page.evaluate(() => window.scrollY);

      const url = page.url();
      await page.keyboard.press('a');
      // The queue answers with a redirect; the checks below wait for the DOM themselves. Waiting for the page's "load"
      // as well (every script and image) once outlasted 20 s on a CI machine at load 14, after the page was there.
      await page.waitForURL((u) => u.toString() !== url && /done=\d+/.test(u.toString()), { waitUntil: 'domcontentloaded' });
      await expect.poll(current).toBe(proposals[3]);
      expect(Math.abs((await top()) - before), JSON.stringify({ before, after: await top(), scrollBefore, scrollAfter: await page.evaluate(() => window.scrollY) })).toBeLessThanOrEqual(2);
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-proposal'))).toBe(proposals[3]);
      expect(await page.locator('.kg-done').textContent()).toContain('Approved node “Entity Number 3”');

      const afterApprove = await top();
      await page.keyboard.press('r');
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(`reason-${proposals[3]}`);
      await page.keyboard.type('not an entity');
      const url2 = page.url();
      await page.keyboard.press('Enter');
      await page.waitForURL((u) => u.toString() !== url2, { waitUntil: 'domcontentloaded' });
      await expect.poll(current).toBe(proposals[4]);
      expect(Math.abs((await top()) - afterApprove)).toBeLessThanOrEqual(2);
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-proposal'))).toBe(proposals[4]);
      // And j goes on from there.
      await page.keyboard.press('j');
      expect(await current()).toBe(proposals[5]);
      await shot(page, 'review-after-actions');
    });

    it('has no sideways scroll at 390 px on the queue, kg-policy, the admin home, a page and the editor', async () => {
      const page = await logIn(phone, admin);
      await page.goto(`${t.baseUrl}/page/handbook-1`);
      const urls: [string, string][] = [
        ['review-queue', '/admin/knowledge-graph'],
        ['kg-policy', '/admin/kg-policy'],
        ['admin-home', '/admin'],
        ['page-view', '/page/handbook-1'],
        ['editor', '/page/handbook-1/edit'],
      ];
      for (const [name, url] of urls) {
        const response = await page.goto(`${t.baseUrl}${url}`);
        expect(response?.status(), url).toBe(200);
        await shot(page, `${name}-390`);
        // Open what folds, so that the widest state is measured too.
        await page.locator('details:not([open]) > summary').evaluateAll((summaries) => summaries.forEach((s) => (s.parentElement as HTMLDetailsElement).open = true));
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
        expect(widths.scroll, `${url} is ${widths.scroll} px wide`).toBeLessThanOrEqual(widths.inner);
        await shot(page, `${name}-390-unfolded`, true);
      }
    });

    it('groups clusters without a policy and acts from a row of the policy table', async () => {
      const page = await desktop.tab();
      await page.goto(`${t.baseUrl}/admin/kg-policy`);
      const group = page.locator('details.policy-undecided');
      expect(await group.getAttribute('open')).toBeNull();
      // The twelve teams, and root (the pages that name no cluster).
      expect(await group.locator('summary').textContent()).toContain('13 clusters have no policy');
      await shot(page, 'kg-policy-1280', true);
      await group.locator('summary').click();
      await page.locator('input[name="clusters"][value="team-1"]').check();
      await page.locator('input[name="clusters"][value="team-2"]').check();
      await page.locator('#bulk-reason').fill('team notes are shared');
      await page.getByRole('button', { name: 'Include selected' }).click();
      await page.waitForURL(/notice=bulk&count=2/);
      expect(await page.locator('.notice').textContent()).toContain('Policy saved for 2 clusters');
      expect(await page.locator('details.policy-undecided summary').textContent()).toContain('11 clusters have no policy');
      // Exclude docs from its row.
      const row = page.locator('tr', { has: page.locator('a[href="/admin/kg-policy/ui/clusters/docs"]') });
      await row.getByPlaceholder('reason').fill('docs moved elsewhere');
      await row.getByRole('button', { name: 'Exclude' }).click();
      await page.waitForURL(/notice=set&cluster=docs/);
      expect(await t.dataSource.query(`SELECT action FROM kg_cluster_policy WHERE cluster = 'docs'`)).toEqual([{ action: 'exclude' }]);
      await shot(page, 'kg-policy-after', true);
    });

    it('shows the admin home with what waits in each room', async () => {
      const page = await desktop.tab();
      await page.goto(`${t.baseUrl}/admin`);
      const pending = Number(await page.locator('[data-pending-proposals]').getAttribute('data-pending-proposals'));
      const [{ n }] = (await t.dataSource.query(`SELECT count(*)::int AS n FROM kg_proposals WHERE status = 'pending'`)) as { n: number }[];
      expect(pending).toBe(n);
      expect(pending).toBe(18); // the 20 of the queue, less the one approved and the one rejected above
      expect(await page.locator('.admin-tile').count()).toBe(4);
      // The header: the admin's name ("Admin") and an Administration link, not "Admin Admin".
      expect((await page.locator('.site-header').innerText()).replace(/\s+/g, ' ')).not.toMatch(/Admin Admin/);
      await shot(page, 'admin-home-1280', true);
    });

    it('keeps the editor’s Save button in view on a long page, and offers anonymous visitors neither New page nor Trash', async () => {
      const api = await t.as('author', { name: 'Ada' });
      const long = Array.from({ length: 120 }, (_, i) => `Line ${i + 1} of a long page.`).join('\n\n');
      await api.post('/api/pages').send({ title: 'Long Page', body: long }).expect(201);
      const page = await desktop.tab(); // the admin, who may author too
      await page.goto(`${t.baseUrl}/page/long-page/edit`);
      const save = await page.getByRole('button', { name: 'Save', exact: true }).boundingBox();
      expect(save).not.toBeNull();
      expect(save!.y).toBeGreaterThanOrEqual(0);
      expect(save!.y + save!.height).toBeLessThanOrEqual(DESKTOP.height);
      // Still there after scrolling into the text.
      await page.mouse.wheel(0, 600);
      await expect.poll(async () => {
        const box = await page.getByRole('button', { name: 'Save', exact: true }).boundingBox();
        return box !== null && box.y >= 0 && box.y + box.height <= DESKTOP.height;
      }).toBe(true);
      await shot(page, 'editor-1280');
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL((url) => !url.pathname.includes('/edit'));
      await page.goto(`${t.baseUrl}/page/long-page`);
      expect(await page.getByRole('link', { name: 'New page' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Trash' }).count()).toBe(0);
    });

    describe('the page graph with 60 neighbours', () => {
      beforeAll(async () => {
        const api = await t.as('author', { name: 'Grapher' });
        const clusters = ['alpha', 'beta', 'gamma', 'delta'];
        // 60 pages around a hub, each also linking to the next two (the links between neighbours that made a hairball).
        for (let i = 1; i <= 60; i++) {
          const links = [`[[Hub]]`, `[[Neighbour ${((i % 60) + 1)}]]`, `[[Neighbour ${(((i + 1) % 60) + 1)}]]`];
          await api.post('/api/pages').send({ title: `Neighbour ${i}`, body: `---\ncluster: ${clusters[i % 4]}\n---\nLinks: ${links.join(', ')}.` }).expect(201);
        }
        await api.post('/api/pages').send({ title: 'Hub', body: 'The hub of sixty pages.' }).expect(201);
      });

      /** Labels cytoscape draws now (rendered boxes) and how much of their area overlaps another label's. */
      const labelOverlap = (page: Page) =>
        page.evaluate(() => {
          const cy = (window as unknown as { KuratePageGraph: { cy: import('cytoscape').Core } }).KuratePageGraph.cy;
          const boxes = cy.nodes().filter((n) => n.visible() && n.style('label') !== '').map((n) => n.renderedBoundingBox({ includeNodes: false, includeEdges: false, includeLabels: true }));
          let overlap = 0;
          let area = 0;
          for (let i = 0; i < boxes.length; i++) {
            area += boxes[i].w * boxes[i].h;
            for (let j = i + 1; j < boxes.length; j++) {
              const w = Math.min(boxes[i].x2, boxes[j].x2) - Math.max(boxes[i].x1, boxes[j].x1);
              const h = Math.min(boxes[i].y2, boxes[j].y2) - Math.max(boxes[i].y1, boxes[j].y1);
              if (w > 0 && h > 0) overlap += w * h;
            }
          }
          const shown = cy.nodes().filter((n) => n.visible()).length;
          return { labels: boxes.length, shown, ratio: area === 0 ? 1 : overlap / area };
        });

      it('draws the 30 most linked first, with readable labels, and all 60 on request', async () => {
        const page = await desktop.tab();
        await page.goto(`${t.baseUrl}/page/hub/graph`);
        const canvas = page.locator('[data-graph-slug]');
        await expect.poll(() => canvas.getAttribute('data-graph-ready'), { timeout: 30_000 }).toBe('31');
        expect(await page.locator('[data-page-graph-count]').textContent()).toBe('Showing 30 of 60 linked pages, the most linked first.');
        const capped = await labelOverlap(page);
        expect(capped.shown).toBe(31);
        expect(capped.labels).toBeGreaterThanOrEqual(10);
        expect(capped.ratio).toBeLessThan(0.02);
        expect(await page.locator('.graph-legend li').count()).toBe(4);
        await shot(page, 'page-graph-30');

        await page.getByRole('button', { name: 'Show all 60' }).click();
        await expect.poll(() => canvas.getAttribute('data-graph-ready'), { timeout: 30_000 }).toBe('61');
        const all = await labelOverlap(page);
        expect(all.shown).toBe(61);
        expect(all.labels).toBeGreaterThanOrEqual(12);
        expect(all.ratio).toBeLessThan(0.02);
        await shot(page, 'page-graph-60');

        // Zooming in makes room: more labels, still not piled up.
        await page.evaluate(() => {
          const cy = (window as unknown as { KuratePageGraph: { cy: import('cytoscape').Core } }).KuratePageGraph.cy;
          cy.zoom({ level: cy.zoom() * 2.5, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
        });
        await expect.poll(async () => (await labelOverlap(page)).labels, { timeout: 5000 }).toBeGreaterThan(all.labels * 0.6);
        expect((await labelOverlap(page)).ratio).toBeLessThan(0.02);
        await shot(page, 'page-graph-60-zoomed');
      });

      it('filters the neighbours by title', async () => {
        const page = await desktop.tab();
        const canvas = page.locator('[data-graph-slug]');
        await page.locator('[data-page-graph-filter]').fill('Neighbour 1');
        // Neighbour 1 and 10-19: 11 pages, and the hub.
        await expect.poll(() => canvas.getAttribute('data-graph-ready'), { timeout: 30_000 }).toBe('12');
        expect(await page.locator('[data-page-graph-count]').textContent()).toBe('Showing 11 of 60 linked pages match.');
        expect((await labelOverlap(page)).ratio).toBeLessThan(0.02);
      });
    });

    it('had no CSP violation and no script error anywhere', () => {
      expect([...desktop.cspViolations, ...phone.cspViolations]).toEqual([]);
      expect(JSON.stringify([...desktop.pageErrors, ...phone.pageErrors])).toBe('[]');
    });
  });
});
