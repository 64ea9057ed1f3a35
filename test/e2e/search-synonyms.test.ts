import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { importPages } from './kg-test-helpers.js';

const BASE = '/admin/knowledge-graph';

/**
 * An admin's synonyms of an entity, over REST and in the entity page: each one a journaled, audited, undoable edit
 * that search understands at once (a query naming the synonym names the entity and lifts the page bearing its name).
 */
describe('entity synonyms: curation that search understands', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let reader: supertest.Agent;
  let entityId: string;
  const first = async (q: string) => ((await reader.get('/api/search').query({ q }).expect(200)).body as { hits: { slug: string }[]; entity: { name: string } | null });
  const audit = async () => ((await t.dataSource.query(`SELECT action, details FROM audit_log WHERE action LIKE 'kg.%' ORDER BY id`)) as { action: string; details: { changed?: string[] } }[]);

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.as('admin');
    reader = await t.as('reader');
    await importPages(await t.as('author'), [
      { path: 'daily-notes.md', title: 'Daily Notes', body: 'One note per date, opened from the command palette.' },
      { path: 'journal-apps.md', title: 'Other Apps', body: 'Some people prefer a paper notebook.' },
    ]);
    entityId = (await admin.post(`${BASE}/entities`).send({ name: 'Daily Notes', type: 'concept' }).expect(201)).body.entity.id;
  });
  afterAll(() => t?.close());

  it('adds a synonym over REST: the search for it names the entity, shows its card and puts its page first', async () => {
    expect((await first('logbook')).hits).toEqual([]);
    const added = await admin.post(`${BASE}/entities/${entityId}/synonyms`).send({ name: '  Logbook ' }).expect(200);
    expect(added.body.entity.aliases).toEqual(['Logbook']);
    expect(added.body.summary).toBe('Edited entity “Daily Notes”: aliases.');
    const found = await first('logbook');
    expect(found.hits[0]?.slug).toBe('daily-notes');
    expect(found.entity?.name).toBe('Daily Notes');
    // A name it already has (case aside) changes nothing.
    expect((await admin.post(`${BASE}/entities/${entityId}/synonyms`).send({ name: 'logbook' }).expect(200)).body.entity.aliases).toEqual(['Logbook']);
    expect((await audit()).filter((a) => a.action === 'kg.entity.update').map((a) => a.details.changed)).toEqual([['aliases'], []]);
  });

  it('refuses an empty or missing synonym, an unknown entity and an unknown synonym with 4xx', async () => {
    await admin.post(`${BASE}/entities/${entityId}/synonyms`).send({ name: '   ' }).expect(400);
    await admin.post(`${BASE}/entities/${entityId}/synonyms`).send({}).expect(400);
    await admin.post(`${BASE}/entities/999999/synonyms`).send({ name: 'x' }).expect(404);
    await admin.delete(`${BASE}/entities/${entityId}/synonyms/${encodeURIComponent('no such name')}`).expect(404);
    await reader.post(`${BASE}/entities/${entityId}/synonyms`).send({ name: 'x' }).expect(403);
  });

  it('removes a synonym (any case), and undo brings it back, each reaching search at once', async () => {
    const removed = await admin.delete(`${BASE}/entities/${entityId}/synonyms/LOGBOOK`).expect(200);
    expect(removed.body.entity.aliases).toEqual([]);
    expect((await first('logbook')).hits).toEqual([]);
    await admin.post(`${BASE}/audit/${removed.body.actionId}/undo`).send({}).expect(200);
    expect((await first('logbook')).hits[0]?.slug).toBe('daily-notes');
  });

  it('adds and removes synonyms from the entity page (forms with CSRF, no JavaScript needed)', async () => {
    const { agent, csrfToken } = await t.login(await t.user('admin'));
    const page = await agent.get(`${BASE}/ui/entities/${entityId}`).set('Accept', 'text/html').expect(200);
    expect(page.text).toContain(`action="${BASE}/ui/entities/${entityId}/synonyms"`);
    expect(page.text).toContain('aria-label="Remove the synonym Logbook"');
    const post = (path: string, fields: Record<string, string>) =>
      agent.post(path).type('form').set('Accept', 'text/html').send(new URLSearchParams({ _csrf: csrfToken, ...fields }).toString());
    const added = await post(`${BASE}/ui/entities/${entityId}/synonyms`, { name: 'Day Book' }).expect(303);
    expect(added.headers.location).toMatch(new RegExp(`/ui/entities/${entityId}\\?done=\\d+`));
    expect((await first('day book')).hits[0]?.slug).toBe('daily-notes');
    await post(`${BASE}/ui/entities/${entityId}/synonyms/remove`, { name: 'Day Book' }).expect(303);
    expect((await first('day book')).entity).toBeNull();
    // A bad one shows the entity page again with the message, and a 4xx.
    const bad = await post(`${BASE}/ui/entities/${entityId}/synonyms/remove`, { name: 'never added' }).expect(404);
    expect(bad.text).toContain('never added');
    await agent.post(`${BASE}/ui/entities/${entityId}/synonyms`).type('form').send('name=x').expect(403);
  });
});
