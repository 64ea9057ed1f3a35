import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

type Agent = supertest.Agent;

describe('/admin/kg-policy REST API', () => {
  let t: TestApp;
  let admin: Agent;
  let reader: Agent;
  let author: Agent;

  const page = (title: string, frontmatter: string, body = 'Some text.') =>
    admin.post('/api/pages').send({ title, body: `---\n${frontmatter}\n---\n${body}\n` }).expect(201);
  const excludedRow = async (slug: string) => {
    const rows: { reason: string; policy_cluster: string | null }[] = await t.dataSource.query(
      'SELECT x.reason, x.policy_cluster FROM kg_excluded_pages x JOIN pages p ON p.id = x.page_id WHERE p.slug = $1', [slug]);
    return rows[0] ?? null;
  };

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin', { name: 'Ada Admin' });
    reader = await t.as('reader');
    author = await t.as('author');
    await t.app.get(PolicyReconciler).whenStartupRebuildDone();
    await page('Diary', 'cluster: personal');
    await page('Groceries', 'cluster: personal');
    await page('Roadmap', 'cluster: work');
    await page('Salaries', 'cluster: work/secret');
    await page('Install', 'cluster: docs');
    await page('Shared Note', 'cluster: [docs, personal]');
    await page('No Cluster', 'title: No Cluster');
  });
  afterAll(() => t.close());

  describe('access', () => {
    it('refuses anonymous requests (401; a write without a session fails the CSRF check first: 403) and readers and authors (403), on every route', async () => {
      const routes: [string, string][] = [
        ['get', '/admin/kg-policy/clusters'], ['get', '/admin/kg-policy/clusters/personal'], ['put', '/admin/kg-policy/clusters/personal'],
        ['delete', '/admin/kg-policy/clusters/personal'], ['post', '/admin/kg-policy/clusters/personal/review'],
        ['post', '/admin/kg-policy/clusters/personal/purge'], ['get', '/admin/kg-policy/explain/diary'], ['get', '/admin/kg-policy/pending'],
        ['get', '/admin/kg-policy/audit'], ['post', '/admin/kg-policy/estimate'], ['post', '/admin/kg-policy/bootstrap'],
        ['get', '/admin/kg-policy'],
      ];
      for (const [method, path] of routes) {
        const anonymous = await (t.http as unknown as Record<string, (p: string) => supertest.Test>)[method](path).set('Accept', 'application/json');
        expect(anonymous.status, `${method} ${path}`).toBe(method === 'get' ? 401 : anonymous.status === 403 ? 403 : 401);
        for (const agent of [reader, author]) {
          const denied = await (agent as unknown as Record<string, (p: string) => supertest.Test>)[method](path).set('Accept', 'application/json');
          expect(denied.status, `${method} ${path}`).toBe(403);
        }
      }
      const bad = await t.http.get('/admin/kg-policy/clusters').set('Authorization', 'Bearer kur_not-a-real-token');
      expect(bad.status).toBe(401);
      const badWrite = await t.http.put('/admin/kg-policy/clusters/personal').set('Authorization', 'Bearer kur_not-a-real-token').send({ action: 'exclude', reason: 'x' });
      expect(badWrite.status).toBe(401);
      expect(await t.dataSource.query('SELECT * FROM kg_cluster_policy')).toEqual([]);
    });
  });

  describe('bootstrap (before any policy exists)', () => {
    it('refuses bad input: no policies, unknown action, missing reason, a duplicate, a bad name', async () => {
      await admin.post('/admin/kg-policy/bootstrap').send({ policies: [] }).expect(400);
      const action = await admin.post('/admin/kg-policy/bootstrap').send({ policies: [{ cluster: 'docs', action: 'maybe', reason: 'x' }] }).expect(400);
      expect(action.body.message).toMatch(/action must be one of: include, exclude/);
      const reason = await admin.post('/admin/kg-policy/bootstrap').send({ policies: [{ cluster: 'docs', action: 'include' }] }).expect(400);
      expect(reason.body.message).toMatch(/reason is required/);
      const twice = await admin.post('/admin/kg-policy/bootstrap')
        .send({ policies: [{ cluster: 'docs', action: 'include', reason: 'a' }, { cluster: 'docs', action: 'exclude', reason: 'b' }] }).expect(400);
      expect(twice.body.message).toMatch(/named twice/);
      const name = await admin.post('/admin/kg-policy/bootstrap').send({ policies: [{ cluster: 'Not A Slug', action: 'include', reason: 'a' }] }).expect(400);
      expect(name.body.message).toMatch(/is not a cluster name/);
      expect(await t.dataSource.query('SELECT * FROM kg_cluster_policy')).toEqual([]);
    });

    it('sets several policies at once (even for clusters no page names yet), audited, and reconciles', async () => {
      const res = await admin.post('/admin/kg-policy/bootstrap').send({
        policies: [
          { cluster: 'docs', action: 'include', reason: 'public documentation' },
          { cluster: 'archive', action: 'exclude', reason: 'old material, coming later' },
        ],
      }).expect(201);
      expect(res.body.items.map((c: { cluster: string; action: string }) => [c.cluster, c.action])).toEqual([['archive', 'exclude'], ['docs', 'include']]);
      expect(await excludedRow('install')).toBeNull();
      const audit: { event: string; cluster: string; actor: string }[] = await t.dataSource.query('SELECT event, cluster, actor FROM kg_policy_audit ORDER BY id');
      expect(audit).toEqual([
        { event: 'bootstrap', cluster: 'docs', actor: 'Ada Admin' },
        { event: 'bootstrap', cluster: 'archive', actor: 'Ada Admin' },
      ]);
    });

    it('is refused with 409 once policies exist', async () => {
      const res = await admin.post('/admin/kg-policy/bootstrap').send({ policies: [{ cluster: 'work', action: 'include', reason: 'x' }] }).expect(409);
      expect(res.body.message).toMatch(/2 already exist/);
    });
  });

  describe('set, get, list', () => {
    it('sets a policy, reconciles the cluster before answering, and says what changed', async () => {
      expect(await excludedRow('roadmap')).toEqual({ reason: 'default', policy_cluster: null });
      const res = await admin.put('/admin/kg-policy/clusters/work').send({ action: 'include', reason: 'team knowledge' }).expect(200);
      expect(res.body).toMatchObject({
        cluster: 'work', action: 'include', effectiveAction: 'include', reason: 'team knowledge', setBy: 'Ada Admin', reviewedBy: 'Ada Admin',
        pages: 2, excludedPages: 0, stale: false, reconciled: { scanned: 2, nowIncluded: 2, nowExcluded: 0 },
      });
      expect(await excludedRow('roadmap')).toBeNull();
      // work/secret has no row of its own: its parent's applies.
      expect(await excludedRow('salaries')).toBeNull();
    });

    it('lets the most specific ancestor win: work/secret excluded under an included work', async () => {
      const res = await admin.put('/admin/kg-policy/clusters/work%2Fsecret').send({ action: 'exclude', reason: 'payroll' }).expect(200);
      expect(res.body).toMatchObject({ cluster: 'work/secret', action: 'exclude', pages: 1, excludedPages: 1, reconciled: { nowExcluded: 1 } });
      expect(await excludedRow('salaries')).toEqual({ reason: 'cluster_policy', policy_cluster: 'work/secret' });
      expect(await excludedRow('roadmap')).toBeNull();
    });

    it('refuses an unknown action, a missing or blank reason, and unknown fields with 400; nothing is written', async () => {
      const action = await admin.put('/admin/kg-policy/clusters/personal').send({ action: 'hide', reason: 'x' }).expect(400);
      expect(action.body.message).toBe('action must be one of: include, exclude');
      const missing = await admin.put('/admin/kg-policy/clusters/personal').send({ action: 'exclude' }).expect(400);
      expect(missing.body.message).toMatch(/reason is required/);
      const blank = await admin.put('/admin/kg-policy/clusters/personal').send({ action: 'exclude', reason: '   ' }).expect(400);
      expect(blank.body.message).toMatch(/reason is required/);
      await admin.put('/admin/kg-policy/clusters/personal').send({ action: 'exclude', reason: 'x', force: true }).expect(400);
      expect(await t.dataSource.query(`SELECT * FROM kg_cluster_policy WHERE cluster = 'personal'`)).toEqual([]);
    });

    it('answers 404 for a cluster no page names (a typo) and 400 for a name that cannot be a cluster', async () => {
      const typo = await admin.put('/admin/kg-policy/clusters/personl').send({ action: 'exclude', reason: 'x' }).expect(404);
      expect(typo.body.message).toMatch(/No page has the cluster "personl"/);
      await admin.get('/admin/kg-policy/clusters/personl').expect(404);
      const bad = await admin.put('/admin/kg-policy/clusters/Bad%20Name').send({ action: 'exclude', reason: 'x' }).expect(400);
      expect(bad.body.message).toMatch(/is not a cluster name/);
      await admin.get('/admin/kg-policy/clusters/a%2Fb%2Fc').expect(400);
    });

    it('lists every cluster named by a page or a policy, with counts, action, reason, who and when', async () => {
      const res = await admin.get('/admin/kg-policy/clusters').expect(200);
      expect(res.body.reviewDays).toBe(90);
      const byName = Object.fromEntries(res.body.items.map((c: { cluster: string }) => [c.cluster, c]));
      // `root`: the page in no cluster (the root cluster, which a policy can include).
      expect(Object.keys(byName)).toEqual(['archive', 'docs', 'personal', 'root', 'work', 'work/secret']);
      expect(byName.docs).toMatchObject({ pages: 2, excludedPages: 0, includedPages: 2, action: 'include', reason: 'public documentation', setBy: 'Ada Admin' });
      expect(byName.personal).toMatchObject({ pages: 3, excludedPages: 2, action: null, effectiveAction: 'default-exclude', reason: null, stale: false });
      expect(byName.work).toMatchObject({ pages: 2, excludedPages: 1, action: 'include' });
      expect(byName.archive).toMatchObject({ pages: 0, action: 'exclude' });
      expect(typeof byName.work.setAt).toBe('string');
    });

    it('gets one cluster with its recent audit trail (sub-clusters included)', async () => {
      const res = await admin.get('/admin/kg-policy/clusters/work').expect(200);
      expect(res.body).toMatchObject({ cluster: 'work', action: 'include', pages: 2 });
      expect(res.body.audit.map((a: { event: string; cluster: string }) => `${a.event} ${a.cluster}`)).toEqual(['set work/secret', 'set work']);
      expect(res.body.audit[1]).toMatchObject({ actor: 'Ada Admin', previousAction: null, action: 'include', reason: 'team knowledge' });
      const child = await admin.get('/admin/kg-policy/clusters/work%2Fsecret').expect(200);
      expect(child.body.audit).toHaveLength(1);
    });
  });

  describe('explain and pending', () => {
    it('explains any page in words, with the rule that decided', async () => {
      const shared = await admin.get('/admin/kg-policy/explain/shared-note').expect(200);
      expect(shared.body).toMatchObject({ slug: 'shared-note', included: true, reason: 'cluster_policy', policyCluster: 'docs', reconciled: true });
      expect(shared.body.explanation).toMatch(/^included: cluster `docs` has policy include, set by Ada Admin on \d{4}-\d{2}-\d{2} \("public documentation"\)$/);
      const salaries = await admin.get('/admin/kg-policy/explain/salaries').expect(200);
      expect(salaries.body.explanation).toMatch(/^excluded: cluster `work\/secret` has policy exclude, set by Ada Admin on .* \("payroll"\)$/);
      const diary = await admin.get('/admin/kg-policy/explain/diary').expect(200);
      expect(diary.body).toMatchObject({ included: false, reason: 'default', explanation: 'excluded: no policy covers cluster `personal` (the default is exclude)' });
      const none = await admin.get('/admin/kg-policy/explain/no-cluster').expect(200);
      expect(none.body.explanation).toBe('excluded: the page has no cluster, and no policy covers the root cluster `root` (the default is exclude)');
    });

    it('answers 404 for an unknown page and 400 for something that is not a slug', async () => {
      const missing = await admin.get('/admin/kg-policy/explain/no-such-page').expect(404);
      expect(missing.body.message).toBe('There is no page "no-such-page".');
      await admin.get('/admin/kg-policy/explain/Not%20A%20Slug').expect(400);
    });

    it('lists pending clusters: named by live pages, covered by no row of their own or their parent', async () => {
      const res = await admin.get('/admin/kg-policy/pending').expect(200);
      expect(res.body.items).toEqual([{ cluster: 'personal', pages: 3 }, { cluster: 'root', pages: 1 }]);
      // A parent that pages name only through a sub-cluster is not a pending decision of its own.
      await page('Lab Note', 'cluster: lab/x');
      const withLab = await admin.get('/admin/kg-policy/pending').expect(200);
      expect(withLab.body.items).toEqual([{ cluster: 'lab/x', pages: 1 }, { cluster: 'personal', pages: 3 }, { cluster: 'root', pages: 1 }]);
      await t.dataSource.query(`DELETE FROM pages WHERE slug = 'lab-note'`);
    });
  });

  describe('estimate', () => {
    it('measures what a change would hide or reveal, and changes nothing', async () => {
      const before = await t.dataSource.query('SELECT * FROM kg_excluded_pages ORDER BY page_id');
      const res = await admin.post('/admin/kg-policy/estimate').send({ cluster: 'personal', action: 'include' }).expect(200);
      // Diary and Groceries would be revealed; Shared Note is already included through docs.
      expect(res.body.changes.find((c: { kind: string }) => c.kind === 'pages')).toEqual({ kind: 'pages', hide: 0, reveal: 2 });
      expect(res.body).toMatchObject({ cluster: 'personal', action: 'include', currentAction: null });
      expect(res.body.summary).toBe('would hide nothing; reveal 2 pages');
      const exclude = await admin.post('/admin/kg-policy/estimate').send({ cluster: 'docs', action: 'exclude' }).expect(200);
      expect(exclude.body.summary).toBe('would hide 2 pages; reveal nothing');
      const clear = await admin.post('/admin/kg-policy/estimate').send({ cluster: 'work%2Fsecret'.replace('%2F', '/'), action: 'clear' }).expect(200);
      expect(clear.body.summary).toBe('would hide nothing; reveal 1 page');
      expect(await t.dataSource.query('SELECT * FROM kg_excluded_pages ORDER BY page_id')).toEqual(before);
      expect(await t.dataSource.query(`SELECT * FROM kg_cluster_policy WHERE cluster = 'personal'`)).toEqual([]);
    });

    it('refuses an unknown action (400) and an unknown cluster (404)', async () => {
      const action = await admin.post('/admin/kg-policy/estimate').send({ cluster: 'personal', action: 'delete' }).expect(400);
      expect(action.body.message).toBe('action must be one of: include, exclude, clear');
      await admin.post('/admin/kg-policy/estimate').send({ cluster: 'nobody', action: 'include' }).expect(404);
      await admin.post('/admin/kg-policy/estimate').send({ action: 'include' }).expect(400);
    });
  });

  describe('review and staleness', () => {
    it(`flags a policy not reviewed for KURATE_POLICY_REVIEW_DAYS, and "mark reviewed" clears it (audited)`, async () => {
      await t.dataSource.query(`UPDATE kg_cluster_policy SET reviewed_at = now() - interval '91 days' WHERE cluster = 'work'`);
      const stale = await admin.get('/admin/kg-policy/clusters?stale=true').expect(200);
      expect(stale.body.items.map((c: { cluster: string }) => c.cluster)).toEqual(['work']);
      expect(stale.body.items[0]).toMatchObject({ stale: true, daysSinceReview: 91 });
      const res = await admin.post('/admin/kg-policy/clusters/work/review').send({ note: 'still right' }).expect(200);
      expect(res.body).toMatchObject({ cluster: 'work', stale: false, daysSinceReview: 0, reviewedBy: 'Ada Admin', action: 'include' });
      expect((await admin.get('/admin/kg-policy/clusters?stale=true').expect(200)).body.items).toEqual([]);
      const [last] = (await admin.get('/admin/kg-policy/audit?cluster=work&limit=1').expect(200)).body.items;
      expect(last).toMatchObject({ event: 'review', cluster: 'work', reason: 'still right', actor: 'Ada Admin' });
    });

    it('answers 404 when the cluster has no policy of its own, 400 for a bad stale flag', async () => {
      const res = await admin.post('/admin/kg-policy/clusters/personal/review').send({}).expect(404);
      expect(res.body.message).toBe('The cluster "personal" has no policy of its own.');
      await admin.get('/admin/kg-policy/clusters?stale=perhaps').expect(400);
    });
  });

  describe('clear', () => {
    it('needs a reason, 404s without a policy, and otherwise lets the parent (or the default) apply again', async () => {
      const missing = await admin.delete('/admin/kg-policy/clusters/work%2Fsecret').send({}).expect(400);
      expect(missing.body.message).toMatch(/reason is required/);
      await admin.delete('/admin/kg-policy/clusters/personal').send({ reason: 'x' }).expect(404);
      const res = await admin.delete('/admin/kg-policy/clusters/work%2Fsecret').send({ reason: 'payroll moved out of the wiki' }).expect(200);
      expect(res.body).toMatchObject({ cluster: 'work/secret', action: null, effectiveAction: 'include', inheritedFrom: 'work', reconciled: { nowIncluded: 1 } });
      expect(await excludedRow('salaries')).toBeNull();
      const [last] = (await admin.get('/admin/kg-policy/audit?limit=1').expect(200)).body.items;
      expect(last).toMatchObject({ event: 'clear', cluster: 'work/secret', previousAction: 'exclude', action: null, reason: 'payroll moved out of the wiki' });
    });
  });

  describe('audit', () => {
    it('lists the trail newest first, filtered by cluster (with sub-clusters) and limited', async () => {
      const all = await admin.get('/admin/kg-policy/audit').expect(200);
      expect(all.body.items.map((a: { event: string }) => a.event)).toEqual(['clear', 'review', 'set', 'set', 'bootstrap', 'bootstrap']);
      const work = await admin.get('/admin/kg-policy/audit?cluster=work').expect(200);
      expect(work.body.items.map((a: { cluster: string }) => a.cluster)).toEqual(['work/secret', 'work', 'work/secret', 'work']);
      expect((await admin.get('/admin/kg-policy/audit?limit=2').expect(200)).body.items).toHaveLength(2);
      await admin.get('/admin/kg-policy/audit?limit=0').expect(400);
      await admin.get('/admin/kg-policy/audit?limit=lots').expect(400);
      await admin.get('/admin/kg-policy/audit?cluster=Bad%20Name').expect(400);
    });

    it('is append-only: the database refuses UPDATE, DELETE and TRUNCATE', async () => {
      await expect(t.dataSource.query(`UPDATE kg_policy_audit SET reason = 'rewritten'`)).rejects.toThrow(/append-only: UPDATE/);
      await expect(t.dataSource.query('DELETE FROM kg_policy_audit')).rejects.toThrow(/append-only: DELETE/);
      await expect(t.dataSource.query('TRUNCATE kg_policy_audit')).rejects.toThrow(/append-only: TRUNCATE/);
    });

    it('also records every policy write in the site-wide audit log', async () => {
      const rows: { action: string; target: string; actor_name: string }[] = await t.dataSource.query(
        `SELECT action, target, actor_name FROM audit_log WHERE action LIKE 'kg_policy.%' ORDER BY id`);
      expect(rows.map((r) => `${r.action} ${r.target}`)).toEqual([
        'kg_policy.bootstrap cluster:docs', 'kg_policy.bootstrap cluster:archive', 'kg_policy.set cluster:work',
        'kg_policy.set cluster:work/secret', 'kg_policy.review cluster:work', 'kg_policy.clear cluster:work/secret',
      ]);
      expect(new Set(rows.map((r) => r.actor_name))).toEqual(new Set(['Ada Admin']));
    });
  });

  describe('purge', () => {
    it('is a dry run by default that states what would go, and refuses a real purge without the typed confirmation', async () => {
      const dry = await admin.post('/admin/kg-policy/clusters/personal/purge').send({}).expect(200);
      expect(dry.body).toMatchObject({ cluster: 'personal', dryRun: true, pages: 2, includedPagesKept: 1 });
      expect(dry.body.summary).toBe('Dry run: purging "personal" would delete 0 rows derived from 2 excluded pages (nothing). Nothing was deleted.');
      const unconfirmed = await admin.post('/admin/kg-policy/clusters/personal/purge').send({ dryRun: false }).expect(400);
      expect(unconfirmed.body.message).toMatch(/confirm: "personal"/);
      await admin.post('/admin/kg-policy/clusters/personal/purge').send({ dryRun: false, confirm: 'personl' }).expect(400);
      await admin.post('/admin/kg-policy/clusters/personal/purge').send({ dryRun: 'sometimes' }).expect(400);
    });

    it('refuses an included cluster (409) and an unknown one (404)', async () => {
      const included = await admin.post('/admin/kg-policy/clusters/docs/purge').send({}).expect(409);
      expect(included.body.message).toMatch(/is included: set it to exclude first/);
      const child = await admin.post('/admin/kg-policy/clusters/work%2Fsecret/purge').send({}).expect(409);
      expect(child.body.message).toMatch(/through its parent "work"/);
      await admin.post('/admin/kg-policy/clusters/nobody/purge').send({}).expect(404);
    });

    it('purges with confirmation and writes an audit row with the counts', async () => {
      const res = await admin.post('/admin/kg-policy/clusters/personal/purge').send({ dryRun: false, confirm: 'personal' }).expect(200);
      expect(res.body).toMatchObject({ dryRun: false, pages: 2 });
      expect(res.body.deleted.map((d: { table: string }) => d.table)).toContain('kg_content_chunks');
      const [last] = (await admin.get('/admin/kg-policy/audit?limit=1').expect(200)).body.items;
      expect(last).toMatchObject({ event: 'purge', cluster: 'personal', reason: 'purged 2 excluded pages' });
      expect(last.details).toMatchObject({ pages: 2, includedPagesKept: 1 });
    });
  });

  describe('tab-separated values for scripts', () => {
    it('answers Accept: text/tab-separated-values with a header row and one line per row', async () => {
      const res = await admin.get('/admin/kg-policy/clusters').set('Accept', 'text/tab-separated-values').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/tab-separated-values/);
      const [header, ...lines] = res.text.trimEnd().split('\n');
      expect(header.split('\t')).toEqual(['cluster', 'pages', 'excluded', 'action', 'reason', 'set_by', 'set_at', 'reviewed_at', 'stale']);
      expect(lines).toHaveLength(6);
      expect(lines.find((l) => l.startsWith('docs\t'))!.split('\t').slice(0, 6)).toEqual(['docs', '2', '0', 'include', 'public documentation', 'Ada Admin']);
      expect(lines.find((l) => l.startsWith('personal\t'))!.split('\t')[3]).toBe('(default exclude)');
      const pending = await admin.get('/admin/kg-policy/pending').set('Accept', 'text/tab-separated-values').expect(200);
      expect(pending.text).toBe('cluster\tpages\npersonal\t3\nroot\t1\n');
    });

    it('keeps JSON the default for */* and for errors', async () => {
      const res = await admin.get('/admin/kg-policy/pending').set('Accept', '*/*').expect(200);
      expect(res.body.items).toBeDefined();
      const err = await admin.get('/admin/kg-policy/clusters/nobody').set('Accept', 'text/tab-separated-values').expect(404);
      expect(JSON.parse(err.text).message).toMatch(/No page has the cluster/);
    });
  });

  it('is documented in the OpenAPI description', async () => {
    const doc = (await t.http.get('/api/docs/openapi.json').expect(200)).body;
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/admin/kg-policy'));
    expect(paths.sort()).toEqual([
      '/admin/kg-policy/audit', '/admin/kg-policy/bootstrap', '/admin/kg-policy/clusters', '/admin/kg-policy/clusters/{cluster}',
      '/admin/kg-policy/clusters/{cluster}/purge', '/admin/kg-policy/clusters/{cluster}/review', '/admin/kg-policy/estimate',
      '/admin/kg-policy/explain/{slug}', '/admin/kg-policy/health', '/admin/kg-policy/health/repair', '/admin/kg-policy/pending',
    ]);
    expect(doc.paths['/admin/kg-policy/clusters/{cluster}'].put.requestBody).toBeDefined();
  });
});
