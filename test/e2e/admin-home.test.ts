import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// /admin, the admins' home: what waits in each room (review, policy, consistency, extraction, audit), read from the
// rooms themselves; and the header that leads there (only admins see it; nobody sees "Admin Admin").

let t: TestApp;
let kg: KgFactory;

beforeAll(async () => {
  t = await startTestApp();
  kg = await KgFactory.for(t);
});

afterAll(async () => {
  await t?.close();
});

const count = async (sql: string) => ((await t.dataSource.query(sql)) as { n: number }[])[0].n;

async function home(): Promise<string> {
  const admin = await t.as('admin', { name: 'Admin' });
  const res = await admin.get('/admin').set('Accept', 'text/html');
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.text.replaceAll('&#x3D;', '=');
}

describe('the admin home', () => {
  it('is for admins only', async () => {
    const anonymous = await t.http.get('/admin').set('Accept', 'text/html');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.location).toBe('/login?next=%2Fadmin');
    for (const role of ['reader', 'author'] as const) {
      expect((await (await t.as(role)).get('/admin').set('Accept', 'text/html')).status).toBe(403);
    }
  });

  it('shows pending proposals, stale and undecided policies, the checker’s findings, extraction and the audit', async () => {
    const passage = await kg.passage('Home Tools', 'Postgres stores everything.');
    await kg.nodeProposal({ name: 'Postgres', type: 'technology', support: [{ ...passage, quote: 'Postgres' }] });
    // A pending proposal with no support at all: a finding of the consistency checker.
    await kg.nodeProposal({ name: 'Ghost', type: 'concept', support: [] });
    const admin = await t.as('admin', { name: 'Polly' });
    await admin.post('/api/pages').send({ title: 'Old Docs', body: '---\ncluster: docs\n---\nDocs.' }).expect(201);
    await admin.post('/api/pages').send({ title: 'Diary', body: '---\ncluster: diary\n---\nPrivate.' }).expect(201);
    await admin.put('/admin/kg-policy/clusters/docs').send({ action: 'include', reason: 'public docs' }).expect(200);
    await t.dataSource.query(`UPDATE kg_cluster_policy SET reviewed_at = now() - interval '400 days' WHERE cluster = 'docs'`);

    const page = await home();
    const pending = await count(`SELECT count(*)::int AS n FROM kg_proposals WHERE status = 'pending'`);
    expect(pending).toBeGreaterThanOrEqual(2);
    expect(page).toContain(`data-pending-proposals="${pending}"`);
    expect(page).toContain('href="/admin/knowledge-graph"');
    // Staleness from the policy service: docs was reviewed 400 days ago; diary has no policy.
    expect(page).toContain('data-stale-policies="1"');
    expect(page).toContain('<a href="/admin/kg-policy/ui/clusters/docs"><code>docs</code></a>');
    expect(page).toMatch(/data-undecided-clusters="\d+"[^>]*>[^<]*cluster[^<]*no policy yet[\s\S]*?<code>diary<\/code>/);
    // The checker: at least the ghost proposal, linked to its page.
    const findings = Number(/data-findings="(\d+)"/.exec(page)![1]);
    const checked = (await admin.get('/admin/kg-policy/health').expect(200)).body as { findings: number; invariants: { name: string; count: number }[] };
    expect(findings).toBe(checked.findings);
    expect(checked.invariants.find((i) => i.name === 'pending_proposals_supported')!.count).toBe(1);
    expect(page).toContain('href="/admin/kg-policy/ui/health"');
    // Extraction: pages the policy includes, and how many are extracted and current.
    const included = await count(`SELECT count(*)::int AS n FROM pages p WHERE p.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM kg_excluded_pages e WHERE e.page_id = p.id)`);
    expect(included).toBeGreaterThan(0);
    expect(page).toMatch(new RegExp(`of ${included} included pages? extracted and current`));
    expect(page).toMatch(/<progress max="\d+" value="\d+">/);
    // Recent audit events: the policy change, by Polly.
    expect(page).toMatch(/Polly · <code>kg_policy\.set<\/code> <span class="muted">cluster:docs<\/span>/);
    expect(page).toContain('href="/admin/audit"');
  });
});

describe('the header', () => {
  const nav = (html: string) => /<header class="site-header">[\s\S]*?<\/header>/.exec(html)![0] + (/<footer class="site-footer">[\s\S]*?<\/footer>/.exec(html)?.[0] ?? '');

  it('offers New page, Trash, Rename and Delete only to those who may author', async () => {
    await (await t.as('author')).post('/api/pages').send({ title: 'Header Page', body: 'Text.' }).expect(201);
    const anonymous = nav((await t.http.get('/page/header-page').expect(200)).text);
    expect(anonymous).not.toContain('New page');
    expect(anonymous).not.toContain('href="/trash"');
    expect(anonymous).toContain('href="/login"');
    const reader = await t.as('reader', { name: 'Rita' });
    const asReader = (await reader.get('/page/header-page').set('Accept', 'text/html').expect(200)).text;
    expect(nav(asReader)).not.toContain('New page');
    expect(nav(asReader)).not.toContain('href="/trash"');
    expect(asReader).not.toContain('/page/header-page/rename');
    const author = await t.as('author', { name: 'Ada' });
    const asAuthor = (await author.get('/page/header-page').set('Accept', 'text/html').expect(200)).text;
    expect(nav(asAuthor)).toContain('href="/page/new">New page</a>');
    expect(nav(asAuthor)).toContain('href="/trash"');
    expect(asAuthor).toContain('/page/header-page/rename');
    expect(nav(asAuthor)).not.toContain('href="/admin"');
  });

  it('shows an admin called Admin their name and an Administration link, never "Admin Admin"', async () => {
    const admin = await t.as('admin', { name: 'Admin' });
    const header = nav((await admin.get('/pages').set('Accept', 'text/html').expect(200)).text);
    expect(header).toContain('<a class="admin-link" href="/admin">Administration</a>');
    expect(header).toMatch(/<a class="user-name" href="\/account\/tokens" title="Your account \(admin\)">Admin<\/a>/);
    expect(header.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ')).not.toMatch(/\bAdmin Admin\b/);
  });
});
