import type supertest from 'supertest';
import type { EntityManager } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainErrorCode, DomainException } from '../../src/common/domain.exception.js';
import { PageSaveHooks, type PageSavedEvent } from '../../src/pages/page-save-hooks.js';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { createApp } from '../../src/app.setup.js';
import { freshTestConfig, startTestApp, type TestApp } from '../support/test-app.js';

describe('kg_excluded_pages reconciliation', () => {
  let t: TestApp;
  let admin: supertest.Agent;

  const exclusion = async (slug: string) => {
    const rows: { reason: string; policy_cluster: string | null }[] = await t.dataSource.query(
      'SELECT x.reason, x.policy_cluster FROM kg_excluded_pages x JOIN pages p ON p.id = x.page_id WHERE p.slug = $1', [slug]);
    return rows[0] ?? 'included';
  };
  const save = async (slug: string, frontmatter: string) => {
    const current = (await admin.get(`/api/pages/${slug}`).expect(200)).body;
    return admin.put(`/api/pages/${slug}`).send({ baseVersion: current.version, body: `---\n${frontmatter}\n---\nText of ${slug}.\n` });
  };
  const setPolicy = (cluster: string, action: string) =>
    admin.put(`/admin/kg-policy/clusters/${encodeURIComponent(cluster)}`).send({ action, reason: 'test' }).expect(200);

  beforeAll(async () => {
    t = await startTestApp({ env: { KURATE_SYSTEM_PAGE_PATTERN: '^(sys|meta)-', KURATE_POLICY_RECONCILE_BATCH: '7' } });
    admin = await t.as('admin');
    await t.app.get(PolicyReconciler).whenStartupRebuildDone();
  });
  afterAll(() => t.close());

  describe('page saves (through the pages API) update the page’s row in the save’s own transaction', () => {
    beforeAll(async () => {
      await admin.post('/api/pages').send({ title: 'Doc A', body: '---\ncluster: docs\n---\nx' }).expect(201);
      await admin.post('/api/pages').send({ title: 'Mover', body: '---\ncluster: personal\n---\nx' }).expect(201);
      await setPolicy('docs', 'include');
      await setPolicy('personal', 'exclude');
    });

    it('a new page gets its decision at once', async () => {
      await admin.post('/api/pages').send({ title: 'Doc B', body: '---\ncluster: docs\n---\nx' }).expect(201);
      expect(await exclusion('doc-b')).toBe('included');
      await admin.post('/api/pages').send({ title: 'Loose', body: 'no frontmatter' }).expect(201);
      expect(await exclusion('loose')).toEqual({ reason: 'default', policy_cluster: null });
    });

    it('changing cluster: or kg_include: in the frontmatter moves the page in or out', async () => {
      expect(await exclusion('mover')).toEqual({ reason: 'cluster_policy', policy_cluster: 'personal' });
      await save('mover', 'cluster: docs').then((r) => expect(r.status).toBe(200));
      expect(await exclusion('mover')).toBe('included');
      await save('mover', 'cluster: docs\nkg_include: false').then((r) => expect(r.status).toBe(200));
      expect(await exclusion('mover')).toEqual({ reason: 'page_override', policy_cluster: null });
      await save('mover', 'cluster: personal\nkg_include: true').then((r) => expect(r.status).toBe(200));
      expect(await exclusion('mover')).toBe('included');
      await save('mover', 'cluster: [docs, personal]').then((r) => expect(r.status).toBe(200));
      expect(await exclusion('mover')).toEqual({ reason: 'cluster_policy', policy_cluster: 'personal' });
      await save('mover', 'cluster: docs\nsystem: true\nkg_include: true').then((r) => expect(r.status).toBe(200));
      expect(await exclusion('mover')).toEqual({ reason: 'system_page', policy_cluster: null });
      await save('mover', 'cluster: docs').then((r) => expect(r.status).toBe(200));
      expect(await exclusion('mover')).toBe('included');
    });

    it('trash, restore and rename re-decide too (the system pattern applies to the new slug)', async () => {
      await admin.delete('/api/pages/mover').expect(204);
      expect(await exclusion('mover')).toEqual({ reason: 'page_in_trash', policy_cluster: null });
      await admin.post('/api/pages/mover/restore').expect(201);
      expect(await exclusion('mover')).toBe('included');
      await admin.post('/api/pages/mover/rename').send({ title: 'Meta Mover' }).expect(201);
      expect(await exclusion('meta-mover')).toEqual({ reason: 'system_page', policy_cluster: null });
      await admin.post('/api/pages/meta-mover/rename').send({ title: 'Mover' }).expect(201);
      expect(await exclusion('mover')).toBe('included');
    });

    it('runs inside the save: a later listener sees the new row, and a failing save leaves the old one', async () => {
      const seen: string[] = [];
      let fail = false;
      const probe = {
        async onPageSaved(event: PageSavedEvent, tx: EntityManager) {
          const rows: { reason: string }[] = await tx.query('SELECT reason FROM kg_excluded_pages WHERE page_id = $1', [event.page.id]);
          seen.push(`${event.change}:${rows[0]?.reason ?? 'included'}`);
          if (fail) throw new DomainException(DomainErrorCode.InvalidInput, 'probe refused the save');
        },
      };
      t.app.get(PageSaveHooks).register(probe);
      await save('mover', 'cluster: personal').then((r) => expect(r.status).toBe(200));
      expect(seen).toEqual(['updated:cluster_policy']);
      fail = true;
      const refused = await save('mover', 'cluster: docs');
      expect(refused.status).toBe(400);
      expect(seen).toEqual(['updated:cluster_policy', 'updated:included']);
      // The save and its reconciliation rolled back together.
      expect(await exclusion('mover')).toEqual({ reason: 'cluster_policy', policy_cluster: 'personal' });
      expect((await admin.get('/api/pages/mover').expect(200)).body.cluster).toBe('personal');
      fail = false;
    });
  });

  describe('the SQL rule and the explained rule agree on every combination', () => {
    const clusterLists = ['', 'a', 'a/b', 'a/c', 'b', '[a, b]', '[b, a]', '[a/b, b]', '[a/c, c]', 'c/d', '[c, a/b]'];
    const overrides = ['', 'kg_include: true', 'kg_include: false'];
    const systems = ['', 'system: true'];
    const titles: string[] = [];

    beforeAll(async () => {
      await admin.post('/api/pages').send({ title: 'Combo plain', body: 'No frontmatter, no cluster.' }).expect(201);
      titles.push('combo-plain');
      let n = 0;
      for (const clusters of clusterLists) {
        for (const override of overrides) {
          for (const system of systems) {
            // Every fourth page has a slug the system pattern matches.
            const title = `${n % 4 === 0 ? 'sys' : 'combo'} ${n++}`;
            const frontmatter = [clusters && `cluster: ${clusters}`, override, system, `title: ${title}`].filter(Boolean).join('\n');
            await admin.post('/api/pages').send({ body: `---\n${frontmatter}\n---\ntext` }).expect(201);
            titles.push(title.replace(' ', '-'));
          }
        }
      }
    });

    const expectAgreement = async () => {
      const outcomes = new Set<string>();
      for (const slug of titles) {
        const res = await admin.get(`/admin/kg-policy/explain/${slug}`).expect(200);
        expect(res.body.reconciled, `${slug}: ${res.body.explanation}`).toBe(true);
        outcomes.add(`${res.body.included ? 'in' : 'out'}:${res.body.reason}`);
      }
      return outcomes;
    };

    it.each([
      ['no policy at all', [] as [string, string][]],
      ['a included, a/b excluded, b excluded', [['a', 'include'], ['a/b', 'exclude'], ['b', 'exclude']] as [string, string][]],
      ['then b included and c excluded', [['b', 'include'], ['c', 'exclude']] as [string, string][]],
      ['then a excluded and a/c included', [['a', 'exclude'], ['a/c', 'include']] as [string, string][]],
    ])('%s', async (_name, changes) => {
      for (const [cluster, action] of changes) await setPolicy(cluster, action);
      const outcomes = await expectAgreement();
      const expected = ['out:system_page', 'out:page_override', 'in:page_override', 'out:default'];
      if (changes.length > 0) expected.push('in:cluster_policy', 'out:cluster_policy');
      expect([...outcomes].sort()).toEqual(expected.sort());
    });

    it('after a full rebuild from scratch (the start-up path), in batches', async () => {
      await t.dataSource.query('DELETE FROM kg_excluded_pages');
      const summary = await t.app.get(PolicyReconciler).reconcileAll('test');
      const pages: { n: number }[] = await t.dataSource.query('SELECT count(*)::int AS n FROM pages');
      expect(summary.scanned).toBe(pages[0].n);
      expect(summary.batches).toBe(Math.floor(pages[0].n / 7) + 1);
      await expectAgreement();
    });
  });

  describe('start-up and load', () => {
    it('rebuilds in the background at start-up, after the app is up', async () => {
      const reconciler = t.app.get(PolicyReconciler);
      await t.dataSource.query(`DELETE FROM kg_excluded_pages WHERE page_id IN (SELECT id FROM pages WHERE slug = 'loose')`);
      expect(await exclusion('loose')).toBe('included');
      reconciler.onApplicationBootstrap();
      const summary = await reconciler.whenStartupRebuildDone();
      expect(summary.nowExcluded).toBe(1);
      expect(await exclusion('loose')).toEqual({ reason: 'default', policy_cluster: null });
    });

    it('does not hold requests up: a page read completes while a long reconciliation is still running', async () => {
      let reconcileDone = false;
      const reconciling = t.app.get(PolicyReconciler).reconcileAll('load test').then((s) => {
        reconcileDone = true;
        return s;
      });
      await t.http.get('/api/pages?perPage=1').expect(200);
      expect(reconcileDone).toBe(false);
      const summary = await reconciling;
      expect(summary.batches).toBeGreaterThan(5);
    });
  });
});

describe('KURATE_SYSTEM_PAGE_PATTERN at start-up', () => {
  it('stops the server with a sentence when PostgreSQL cannot read a pattern JavaScript accepted', async () => {
    const { config, drop } = await freshTestConfig({ KURATE_SYSTEM_PAGE_PATTERN: '^templates\\q' });
    const app = await createApp(config);
    try {
      await expect(app.init()).rejects.toThrow(/KURATE_SYSTEM_PAGE_PATTERN is not a regular expression PostgreSQL accepts \(.*invalid escape/);
    } finally {
      await app.close();
      await drop();
    }
  });
});
