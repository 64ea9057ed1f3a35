import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { csrfTokenIn, startTestApp, type TestApp } from '../support/test-app.js';

describe('/admin/kg-policy web UI', () => {
  let t: TestApp;
  let browser: supertest.Agent;
  let csrf: string;

  const form = (path: string, fields: Record<string, string>, token = csrf) =>
    browser.post(path).type('form').set('Accept', 'text/html').send({ _csrf: token, ...fields });
  const html = async (path: string, status = 200) => (await browser.get(path).set('Accept', 'text/html').expect(status)).text;
  const policyOf = async (cluster: string) =>
    ((await t.dataSource.query('SELECT action, reason FROM kg_cluster_policy WHERE cluster = $1', [cluster])) as { action: string; reason: string }[])[0] ?? null;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.get(PolicyReconciler).whenStartupRebuildDone();
    const api = await t.as('admin');
    for (const [title, cluster] of [['Diary', 'personal'], ['Trip', 'personal'], ['Install', 'docs']]) {
      await api.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\nAbout ${title}.\n` }).expect(201);
    }
    // One pending proposal supported by an included page, one by an excluded page (hidden, so not counted).
    await api.put('/admin/kg-policy/clusters/docs').send({ action: 'include', reason: 'public docs' }).expect(200);
    await t.dataSource.query(
      `WITH c AS (INSERT INTO kg_content_chunks (page_id, position, text, content_hash)
                  SELECT id, 1, 'text', 'h' FROM pages WHERE slug IN ('install', 'diary') RETURNING id, page_id),
            p AS (INSERT INTO kg_proposals (kind, signature, name, node_type, confidence, extractor)
                  SELECT 'node', 'sig-' || c.id, 'Thing ' || c.id, 'concept', 0.9, 'builtin' FROM c RETURNING id, signature)
       INSERT INTO kg_proposal_support (proposal_id, chunk_id, page_id, quote)
       SELECT p.id, c.id, c.page_id, 'text' FROM p JOIN c ON p.signature = 'sig-' || c.id`,
    );
    ({ agent: browser, csrfToken: csrf } = await t.login(await t.user('admin', { name: 'Hedy' })));
  });
  afterAll(() => t.close());

  it('is the admins’ front door: clusters, pending clusters, the review queue count and its link, no inline script or style', async () => {
    const page = await html('/admin/kg-policy');
    expect(page).toContain('<h1 class="page-title">Knowledge-graph policy</h1>');
    expect(page).toMatch(/<strong>1 proposal is<\/strong> waiting for review\./);
    expect(page).toContain('href="/admin/knowledge-graph"');
    expect(page).toContain('href="/admin/kg-policy/ui/clusters/docs"');
    // Clusters without a policy are grouped apart (collapsed, with their count), each with its row actions.
    expect(page).toMatch(/<details class="policy-undecided">\s*<summary><strong>1 cluster has no policy<\/strong> <span class="muted">\(2 pages, excluded by default/);
    const group = page.slice(page.indexOf('<details class="policy-undecided">'));
    expect(group).toContain('<input type="checkbox" name="clusters" value="personal" form="policy-bulk"');
    expect(group).toContain('action="/admin/kg-policy/ui/clusters/personal/apply"');
    expect(page).toContain('public docs');
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).not.toMatch(/\sstyle=|<style/);
  });

  it('is refused to readers (403) and sends anonymous visitors to the login form', async () => {
    const reader = await t.login(await t.user('reader'));
    await reader.agent.get('/admin/kg-policy').set('Accept', 'text/html').expect(403);
    const anonymous = await t.http.get('/admin/kg-policy').set('Accept', 'text/html').expect(303);
    expect(anonymous.headers.location).toBe('/login?next=%2Fadmin%2Fkg-policy');
  });

  it('shows the estimate before a change, applies it only when confirmed, and audits it', async () => {
    const cluster = await html('/admin/kg-policy/ui/clusters/personal');
    expect(cluster).toContain('none: its pages are excluded by default');
    expect(csrfTokenIn(cluster)).toBe(csrf);

    const confirm = await form('/admin/kg-policy/ui/clusters/personal/estimate', { action: 'include', reason: 'travel notes are fine' }).expect(200);
    expect(confirm.text).toContain('This change would hide nothing; reveal 2 pages, 1 chunk and 1 proposal.');
    expect(confirm.text).toContain('<input type="hidden" name="action" value="include">');
    expect(confirm.text).toContain('<input type="hidden" name="reason" value="travel notes are fine">');
    expect(await policyOf('personal')).toBeNull();

    const applied = await form('/admin/kg-policy/ui/clusters/personal/apply', { action: 'include', reason: 'travel notes are fine' }).expect(303);
    expect(applied.headers.location).toBe('/admin/kg-policy/ui/clusters/personal?notice=set');
    expect(await policyOf('personal')).toEqual({ action: 'include', reason: 'travel notes are fine' });
    const after = await html(applied.headers.location);
    expect(after).toContain('Policy saved; the cluster’s pages were reconciled.');
    expect(after).toMatch(/<span class="badge">include<\/span>: “travel notes are fine”, set by Hedy on/);
  });

  it('keeps what was typed and says why when the reason is missing or the action unknown (400), and changes nothing', async () => {
    const noReason = await form('/admin/kg-policy/ui/clusters/personal/estimate', { action: 'exclude', reason: '  ' }).expect(400);
    expect(noReason.text).toMatch(/reason is required/);
    expect(noReason.text).toContain('id="action-exclude" name="action" type="radio" value="exclude" checked');
    const badAction = await form('/admin/kg-policy/ui/clusters/personal/estimate', { action: 'hide', reason: 'x' }).expect(400);
    expect(badAction.text).toContain('Choose include, exclude or clear.');
    const badApply = await form('/admin/kg-policy/ui/clusters/personal/apply', { action: 'exclude', reason: '' }).expect(400);
    expect(badApply.text).toMatch(/reason is required/);
    expect(await policyOf('personal')).toEqual({ action: 'include', reason: 'travel notes are fine' });
  });

  it('refuses a form without the CSRF token', async () => {
    await browser.post('/admin/kg-policy/ui/clusters/personal/apply').type('form').set('Accept', 'text/html')
      .send({ action: 'exclude', reason: 'sneaky' }).expect(403);
    expect(await policyOf('personal')).toEqual({ action: 'include', reason: 'travel notes are fine' });
  });

  it('marks a policy reviewed', async () => {
    await t.dataSource.query(`UPDATE kg_cluster_policy SET reviewed_at = now() - interval '120 days' WHERE cluster = 'personal'`);
    expect(await html('/admin/kg-policy/ui/clusters/personal')).toContain('stale: not reviewed for more than 90 days');
    expect(await html('/admin/kg-policy')).toMatch(/1 policy has not been reviewed for more than 90 days/);
    const res = await form('/admin/kg-policy/ui/clusters/personal/review', { note: 'still fine' }).expect(303);
    expect(res.headers.location).toBe('/admin/kg-policy/ui/clusters/personal?notice=reviewed');
    expect(await html('/admin/kg-policy/ui/clusters/personal')).not.toContain('stale: not reviewed');
  });

  it('explains any page in words', async () => {
    const page = await html('/admin/kg-policy/ui/explain?slug=diary');
    expect(page).toMatch(/included: cluster &#x60;personal&#x60; has policy include, set by Hedy on \d{4}-\d{2}-\d{2} \(&quot;travel notes are fine&quot;\)/);
    expect(await html('/admin/kg-policy/ui/explain?slug=nothing-here', 404)).toContain('There is no page &quot;nothing-here&quot;.');
    expect(await html('/admin/kg-policy/ui/explain?slug=Not%20a%20slug', 400)).toContain('is not a page slug');
    expect(await html('/admin/kg-policy/ui/explain')).toContain('name="slug"');
  });

  it('purges only after a dry run and the typed cluster name', async () => {
    const included = await form('/admin/kg-policy/ui/clusters/personal/purge', {}).expect(409);
    expect(included.text).toContain('is included: set it to exclude first');
    await form('/admin/kg-policy/ui/clusters/personal/apply', { action: 'exclude', reason: 'private after all' }).expect(303);

    const dry = await form('/admin/kg-policy/ui/clusters/personal/purge', {}).expect(200);
    expect(dry.text).toContain('Dry run: purging &quot;personal&quot; would delete 3 rows derived from 2 excluded pages');
    expect(dry.text).toContain('name="confirm"');
    const chunks = async () => ((await t.dataSource.query('SELECT count(*)::int AS n FROM kg_content_chunks')) as { n: number }[])[0].n;
    expect(await chunks()).toBe(2);

    const wrong = await form('/admin/kg-policy/ui/clusters/personal/purge', { step: 'confirm', confirm: 'Personal' }).expect(400);
    expect(wrong.text).toContain('Nothing was deleted: type &quot;personal&quot; exactly to confirm the purge.');
    expect(await chunks()).toBe(2);

    const done = await form('/admin/kg-policy/ui/clusters/personal/purge', { step: 'confirm', confirm: 'personal' }).expect(303);
    expect(done.headers.location).toBe('/admin/kg-policy/ui/clusters/personal?notice=purged');
    expect(await chunks()).toBe(1);
    expect(await html(done.headers.location)).toMatch(/purge<\/td><td><code>personal<\/code><\/td>/);
  });

  it('clears a policy through the same estimate-then-confirm steps', async () => {
    const confirm = await form('/admin/kg-policy/ui/clusters/personal/estimate', { action: 'clear', reason: 'back to the default' }).expect(200);
    expect(confirm.text).toContain('Confirm: clear the policy of <code>personal</code>');
    const res = await form('/admin/kg-policy/ui/clusters/personal/apply', { action: 'clear', reason: 'back to the default' }).expect(303);
    expect(res.headers.location).toBe('/admin/kg-policy/ui/clusters/personal?notice=cleared');
    expect(await policyOf('personal')).toBeNull();
  });

  it('shows the audit trail, filtered by cluster', async () => {
    const page = await html('/admin/kg-policy/ui/audit?cluster=personal');
    const events = [...page.matchAll(/<td>Hedy<\/td><td>(\w+)<\/td>/g)].map((m) => m[1]);
    expect(events).toEqual(['clear', 'purge', 'set', 'review', 'set']);
    expect(await html('/admin/kg-policy/ui/audit?cluster=Bad%20Name', 400)).toContain('is not a cluster name');
  });

  it('acts from the dashboard’s rows: include or exclude at once, estimate first with the reason asked after, purge after a dry run', async () => {
    const api = await t.as('admin');
    await api.post('/api/pages').send({ title: 'Row One', body: '---\ncluster: rows\n---\nA row.\n' }).expect(201);
    const page = await html('/admin/kg-policy');
    const row = page.slice(page.indexOf('action="/admin/kg-policy/ui/clusters/rows/apply"'));
    expect(row.slice(0, 1500)).toContain('formaction="/admin/kg-policy/ui/clusters/rows/estimate?reason=later"');
    expect(row.slice(0, 1500)).toContain('<button type="submit" name="action" value="include" class="small">Include</button>');
    // Include, straight from the row: back to the dashboard, which says which cluster changed.
    const included = await form('/admin/kg-policy/ui/clusters/rows/apply', { action: 'include', reason: 'rows are public', return: '/admin/kg-policy' }).expect(303);
    expect(included.headers.location).toBe('/admin/kg-policy?notice=set&cluster=rows');
    expect(await html(included.headers.location)).toContain('rows: Policy saved; the cluster’s pages were reconciled.');
    expect(await policyOf('rows')).toEqual({ action: 'include', reason: 'rows are public' });
    // The row now offers Exclude (not Include), and its Estimate measures an exclude.
    const after = await html('/admin/kg-policy');
    const changed = after.slice(after.indexOf('action="/admin/kg-policy/ui/clusters/rows/apply"')).slice(0, 1500);
    expect(changed).not.toContain('value="include" class="small">Include</button>');
    expect(changed).toContain('value="exclude" class="small">Exclude</button>');
    expect(changed).toMatch(/name="action" value="exclude" formaction="\/admin\/kg-policy\/ui\/clusters\/rows\/estimate\?reason=later"/);
    // Estimate without a reason: the confirmation asks for it, and confirming returns to the dashboard.
    const estimate = await form('/admin/kg-policy/ui/clusters/rows/estimate?reason=later', { action: 'exclude', reason: '', return: '/admin/kg-policy' }).expect(200);
    expect(estimate.text).toContain('Confirm: exclude <code>rows</code>');
    expect(estimate.text).toMatch(/<input id="reason" name="reason" type="text" maxlength="1000" required>/);
    expect(estimate.text).toContain('<input type="hidden" name="return" value="/admin/kg-policy">');
    expect(await policyOf('rows')).toEqual({ action: 'include', reason: 'rows are public' });
    const excluded = await form('/admin/kg-policy/ui/clusters/rows/apply', { action: 'exclude', reason: 'changed my mind', return: '/admin/kg-policy' }).expect(303);
    expect(excluded.headers.location).toBe('/admin/kg-policy?notice=set&cluster=rows');
    expect(await policyOf('rows')).toEqual({ action: 'exclude', reason: 'changed my mind' });
    // Without ?reason=later the estimate still needs the reason (the cluster page's form), and an apply always does.
    expect((await form('/admin/kg-policy/ui/clusters/rows/estimate', { action: 'include', reason: '' }).expect(400)).text).toMatch(/reason is required/);
    expect((await form('/admin/kg-policy/ui/clusters/rows/apply', { action: 'include', reason: ' ', return: '/admin/kg-policy' }).expect(400)).text).toMatch(/reason is required/);
    expect(await policyOf('rows')).toEqual({ action: 'exclude', reason: 'changed my mind' });
    // Purge… from the row is the dry run with the typed confirmation, as on the cluster page.
    const dry = await form('/admin/kg-policy/ui/clusters/rows/purge', { reason: '', return: '/admin/kg-policy' }).expect(200);
    expect(dry.text).toContain('Dry run: purging &quot;rows&quot;');
    // A return address elsewhere is ignored: back to the cluster page.
    const elsewhere = await form('/admin/kg-policy/ui/clusters/rows/apply', { action: 'include', reason: 'again', return: 'https://evil.example/' }).expect(303);
    expect(elsewhere.headers.location).toBe('/admin/kg-policy/ui/clusters/rows?notice=set');
  });

  it('sets several clusters without a policy at once, and refuses a bulk form without its CSRF token or its choices', async () => {
    const api = await t.as('admin');
    for (const [title, cluster] of [['Bulk A', 'bulk-a'], ['Bulk B', 'bulk-b'], ['Bulk C', 'bulk-c']]) {
      await api.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\nText.\n` }).expect(201);
    }
    await browser.post('/admin/kg-policy/ui/bulk').type('form').set('Accept', 'text/html')
      .send({ clusters: ['bulk-a', 'bulk-b'], action: 'include', reason: 'sneaky' }).expect(403);
    expect(await policyOf('bulk-a')).toBeNull();
    expect((await form('/admin/kg-policy/ui/bulk', { action: 'include', reason: 'none chosen' }).expect(400)).text).toContain('Select at least one cluster');
    const noReason = await browser.post('/admin/kg-policy/ui/bulk').type('form').set('Accept', 'text/html')
      .send(`_csrf=${encodeURIComponent(csrf)}&clusters=bulk-a&action=include&reason=`).expect(400);
    expect(noReason.text).toMatch(/reason is required/);
    const badAction = await browser.post('/admin/kg-policy/ui/bulk').type('form').set('Accept', 'text/html')
      .send(`_csrf=${encodeURIComponent(csrf)}&clusters=bulk-a&action=maybe&reason=why`).expect(400);
    expect(badAction.text).toContain('action must be one of: include, exclude');
    expect(badAction.text).toContain('value="why"');
    const unknown = await browser.post('/admin/kg-policy/ui/bulk').type('form').set('Accept', 'text/html')
      .send(`_csrf=${encodeURIComponent(csrf)}&clusters=bulk-a&clusters=no-such-cluster&action=include&reason=why`).expect(404);
    expect(unknown.text).toContain('no-such-cluster');
    expect(await policyOf('bulk-a')).toBeNull();
    const done = await browser.post('/admin/kg-policy/ui/bulk').type('form').set('Accept', 'text/html')
      .send(`_csrf=${encodeURIComponent(csrf)}&clusters=bulk-a&clusters=bulk-b&action=include&reason=${encodeURIComponent('both public')}`).expect(303);
    expect(done.headers.location).toBe('/admin/kg-policy?notice=bulk&count=2');
    expect(await html(done.headers.location)).toContain('Policy saved for 2 clusters; their pages were reconciled.');
    expect(await policyOf('bulk-a')).toEqual({ action: 'include', reason: 'both public' });
    expect(await policyOf('bulk-b')).toEqual({ action: 'include', reason: 'both public' });
    expect(await policyOf('bulk-c')).toBeNull();
    const audited = await t.dataSource.query(`SELECT cluster, actor FROM kg_policy_audit WHERE reason = 'both public' ORDER BY cluster`);
    expect(audited).toEqual([{ cluster: 'bulk-a', actor: 'Hedy' }, { cluster: 'bulk-b', actor: 'Hedy' }]);
    // Their pages were reconciled: now included.
    const excluded = await t.dataSource.query(`SELECT p.slug FROM kg_excluded_pages e JOIN pages p ON p.id = e.page_id WHERE p.slug IN ('bulk-a', 'bulk-b')`);
    expect(excluded).toEqual([]);
  });

  it('answers 404 for an unknown cluster', async () => {
    await browser.get('/admin/kg-policy/ui/clusters/no-such-cluster').set('Accept', 'text/html').expect(404);
    await form('/admin/kg-policy/ui/clusters/no-such-cluster/estimate', { action: 'include', reason: 'x' }).expect(404);
  });
});
