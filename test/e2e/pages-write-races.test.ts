import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_KEY_LOCKS } from '../../src/pages/page-links.repository.js';
import { linkKey } from '../../src/pages/markdown/slug.js';
import { BUCKETS, lockKeySql } from '../../src/db/advisory-locks.js';
import { holdLock, ON_POSTGRES, waitFor, type LockGate } from '../support/lock-gate.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Page writes that race each other must each end as one of them alone would, never in a 500 or a doubled change.
 *
 * On PostgreSQL the interleaving is made certain: the test holds a page's row (FOR UPDATE) from a connection of its
 * own, waits until the requests queue behind it, and only then lets go (after an edit of its own, where the race
 * needs one). On the embedded database its single connection serialises the requests, so the same requests run one
 * after the other; the outcomes asserted are the same.
 */
if (!ON_POSTGRES) console.warn('pages-write-races: on the embedded database the requests are serialised by its single connection; the row gate runs on PostgreSQL only (DATABASE_URL).');

/** Holds a page's row (FOR UPDATE); what the gate does meanwhile is committed when it lets go. */
const holdPage = (dataSource: DataSource, slug: string) => holdLock(dataSource, 'SELECT 1 FROM pages WHERE slug = $1 FOR UPDATE', [slug], { commit: true });

describe('page writes that race each other', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('a rename that rewrites links reads each linking page as last committed: an edit that dropped the link meanwhile stays, and the rename succeeds', async () => {
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Race Target', body: 'The page being renamed.' }).expect(201);
    const source = (await author.post('/api/pages').send({ title: 'Race Source', body: 'See [[Race Target]].' }).expect(201)).body;
    const other = (await author.post('/api/pages').send({ title: 'Race Other', body: 'Also [[Race Target]].' }).expect(201)).body;

    // Meanwhile an edit of the source, committed first, drops the link (as an edit of its own would: new body,
    // version and revision, no outgoing link).
    const edited = 'No link here any more.';
    const editSource = async (gate: LockGate) => {
      await gate.query(`UPDATE pages SET body = $2, version = version + 1, updated_at = now() WHERE id = $1`, [source.id, edited]);
      await gate.query(
        `INSERT INTO page_revisions (page_id, version, slug, title, body, content_hash, author, message)
         SELECT page_id, version + 1, slug, title, $2, content_hash || '-edited', 'someone else', 'drop the link' FROM page_revisions WHERE page_id = $1 AND version = 1`,
        [source.id, edited],
      );
      await gate.query('DELETE FROM page_links WHERE from_page_id = $1', [source.id]);
    };
    const startRename = () => author.post('/api/pages/race-target/rename').send({ title: 'Race Renamed', rewriteLinks: true }).then((r) => r);
    const gate = await holdPage(t.dataSource, source.slug);
    let rename: ReturnType<typeof startRename>;
    if (ON_POSTGRES) {
      // The rename reaches the source's row and queues behind the gate; the edit commits before it goes on.
      rename = startRename();
      await waitFor('the rename to queue behind the held row', async () => (await gate.waiting()) >= 1);
      await editSource(gate);
      await gate.release();
    } else {
      await editSource(gate);
      rename = startRename();
    }

    const renamed = await rename;
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(201);
    expect(renamed.body.title).toBe('Race Renamed');
    expect(renamed.body.rewrittenPages).toEqual([other.slug]);
    // The source keeps the edit, with no revision of the rename's on top; the other linking page was rewritten.
    const after = await author.get(`/api/pages/${source.slug}`).expect(200);
    expect(after.body.body).toBe(edited);
    const history = await author.get(`/api/pages/${source.slug}/history`).expect(200);
    expect(history.body.items.map((r: { version: number }) => r.version)).toEqual([2, 1]);
    expect((await author.get(`/api/pages/${other.slug}`).expect(200)).body.body).toBe('Also [[Race Renamed]].');
  });

  it('two renames at once that rewrite one page linking to both: both succeed, and the page links to both new names', async () => {
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Twin Rename A', body: 'First.' }).expect(201);
    await author.post('/api/pages').send({ title: 'Twin Rename B', body: 'Second.' }).expect(201);
    const source = (await author.post('/api/pages').send({ title: 'Twin Rename Source', body: 'See [[Twin Rename A]] and [[Twin Rename B]].' }).expect(201)).body;
    // Both renames reach the linking page's row and queue behind the gate. Each had taken its own page's row first
    // (changing its slug), and rewriting the source's links to the other's page needs a share of that page's row:
    // without a lock order, the two deadlocked and one answered 500.
    const gate = await holdPage(t.dataSource, source.slug);
    const renames = [['twin-rename-a', 'Twin Renamed A'], ['twin-rename-b', 'Twin Renamed B']].map(([slug, title]) =>
      author.post(`/api/pages/${slug}/rename`).send({ title, rewriteLinks: true }).then((r) => r),
    );
    await waitFor('both renames to queue behind the linking page', async () => (await gate.waiting()) >= 2);
    await gate.release();
    const answers = await Promise.all(renames);
    expect(answers.map((r) => r.status), JSON.stringify(answers.map((r) => r.body))).toEqual([201, 201]);
    const after = await author.get(`/api/pages/${source.slug}`).expect(200);
    expect(after.body.body).toBe('See [[Twin Renamed A]] and [[Twin Renamed B]].');
    expect(after.body.version).toBe(3);
    const outbound = await t.dataSource.query(
      `SELECT p.slug FROM page_links l JOIN pages p ON p.id = l.resolved_page_id WHERE l.from_page_id = $1 ORDER BY p.slug`, [source.id]);
    expect(outbound.map((r: { slug: string }) => r.slug)).toEqual(['twin-renamed-a', 'twin-renamed-b']);
  });

  it('two deletes of one page: one moves it to the trash, the other finds no page (404), and the trash holds it once', async () => {
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Delete Twice', body: 'Going.' }).expect(201);
    const gate = await holdPage(t.dataSource, 'delete-twice');
    const deletes = [author.delete('/api/pages/delete-twice').then((r) => r), author.delete('/api/pages/delete-twice').then((r) => r)];
    // One waits on the row, the other on the page's name lock behind it.
    await waitFor('both deletes to queue', async () => (await gate.waiting()) >= 2);
    await gate.release();
    const statuses = (await Promise.all(deletes)).map((r) => r.status).sort();
    expect(statuses).toEqual([204, 404]);
    const trash = await author.get('/api/trash').expect(200);
    expect(trash.body.items.filter((p: { slug: string }) => p.slug === 'delete-twice')).toHaveLength(1);
  });

  it('a save that loses to a delete answers that the page is in the trash (404), not that someone saved it (409)', async () => {
    const author = await t.as('author');
    const page = (await author.post('/api/pages').send({ title: 'Saved While Deleted', body: 'Before.' }).expect(201)).body;
    const gate = await holdPage(t.dataSource, page.slug);
    const remove = author.delete(`/api/pages/${page.slug}`).then((r) => r);
    await waitFor('the delete to queue', async () => (await gate.waiting()) >= 1);
    // On the embedded database nothing queues: the delete is done first, and the save comes after it.
    if (!ON_POSTGRES) expect((await remove).status).toBe(204);
    // The save edits version 1 (which this process created, and so remembers) and queues behind the delete.
    const save = author.put(`/api/pages/${page.slug}`).send({ body: 'After.', baseVersion: page.version }).then((r) => r);
    await waitFor('the save to queue', async () => (await gate.waiting()) >= 2);
    await gate.release();
    expect((await remove).status).toBe(204);
    const answer = await save;
    expect(answer.status, JSON.stringify(answer.body)).toBe(404);
    expect(answer.body).toMatchObject({ code: 'not_found', inTrash: true, message: expect.stringContaining('is in the trash') });
  });

  it('a rename of a page that an edit saved meanwhile renames the page as now saved (a rename has no base version)', async () => {
    const author = await t.as('author');
    const page = (await author.post('/api/pages').send({ title: 'Renamed While Edited', body: 'Version one.' }).expect(201)).body;
    const gate = await holdPage(t.dataSource, page.slug);
    // The gate's own edit commits when it lets go: the rename, which read version 1, then finds version 2.
    await gate.query(`UPDATE pages SET body = 'Version two.', version = 2 WHERE id = $1`, [page.id]);
    await gate.query(
      `INSERT INTO page_revisions (page_id, version, slug, title, body, content_hash, author, message)
       SELECT id, 2, slug, title, body, content_hash, 'someone', 'edit' FROM pages WHERE id = $1`,
      [page.id],
    );
    const rename = author.post(`/api/pages/${page.slug}/rename`).send({ title: 'Renamed After Edit', rewriteLinks: false }).then((r) => r);
    await waitFor('the rename to queue', async () => (await gate.waiting()) >= 1);
    await gate.release();
    const answer = await rename;
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const after = await author.get('/api/pages/renamed-after-edit').expect(200);
    expect(after.body).toMatchObject({ title: 'Renamed After Edit', body: 'Version two.', version: 3 });
  });

  it('two restores of one page: one brings it back, the other answers that it is not in the trash (409)', async () => {
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Restore Twice', body: 'Back.' }).expect(201);
    await author.delete('/api/pages/restore-twice').expect(204);
    const gate = await holdPage(t.dataSource, 'restore-twice');
    const restores = [author.post('/api/pages/restore-twice/restore').then((r) => r), author.post('/api/pages/restore-twice/restore').then((r) => r)];
    await waitFor('both restores to queue', async () => (await gate.waiting()) >= 2);
    await gate.release();
    const answers = await Promise.all(restores);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(answers.find((r) => r.status === 409)!.body.message).toMatch(/not in the trash/);
    await author.get('/api/pages/restore-twice').expect(200);
  });

  it.runIf(ON_POSTGRES)('saves that link to one page go on together; the page being created meanwhile waits for them, and every link meets it', async () => {
    const author = await t.as('author');
    await author.post('/api/pages').send({ title: 'Hub Linker A', body: 'About [[Shared Hub]].' }).expect(201);
    const b = (await author.post('/api/pages').send({ title: 'Hub Linker B', body: 'Also [[Shared Hub]].' }).expect(201)).body;
    // A save that links to the hub holds its key as such a save does (its bucket and the key, both shared) until it
    // commits: here, until the gate lets go.
    const gate = await holdLock(t.dataSource, `SELECT pg_advisory_xact_lock_shared(${-LINK_KEY_LOCKS}, hashtext($1) & ${BUCKETS - 1}), pg_advisory_xact_lock_shared(${LINK_KEY_LOCKS}, hashtext($1))`, [linkKey('Shared Hub')]);
    let released = false;
    try {
      // Another save that links to it does not wait (before, each such save took the key alone, one at a time).
      await author.put('/api/pages/hub-linker-b').send({ body: 'Also [[Shared Hub]], edited.', baseVersion: b.version }).expect(200);
      // Creating the hub changes what the key resolves to: it waits for the linking save to commit.
      const creating = author.post('/api/pages').send({ title: 'Shared Hub', body: 'The hub.' }).then((r) => r);
      await waitFor('the creation to queue', async () => (await gate.waiting()) >= 1);
      await gate.release();
      released = true;
      expect((await creating).status).toBe(201);
    } finally {
      if (!released) await gate.release();
    }
    const backlinks = (await t.http.get('/api/pages/shared-hub/backlinks').expect(200)).body.items.map((p: { slug: string }) => p.slug);
    expect(backlinks.sort()).toEqual(['hub-linker-a', 'hub-linker-b']);
  });

  it('two creates of one title at once: one 201, one 409 naming the page that exists; one page, one revision', async () => {
    const author = await t.as('author');
    const title = 'Create Race';
    // Both look for the slug's lock; the second finds the page the first created (the slug's unique index decides).
    const gate = await holdLock(t.dataSource, `SELECT ${lockKeySql(LINK_KEY_LOCKS, '$1')}`, [linkKey(title)]);
    const creates = ['first', 'second'].map((word) => author.post('/api/pages').send({ title, body: `The ${word} text.` }).then((r) => r));
    if (ON_POSTGRES) await waitFor('both creates to queue', async () => (await gate.waiting()) >= 2);
    await gate.release();
    const answers = await Promise.all(creates);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(answers.find((r) => r.status === 409)!.body.message).toBe('A page named "Create Race" already exists.');
    const [{ pages, revisions }] = await t.dataSource.query(
      `SELECT (SELECT count(*) FROM pages WHERE slug = 'create-race')::int AS pages,
              (SELECT count(*) FROM page_revisions r JOIN pages p ON p.id = r.page_id WHERE p.slug = 'create-race')::int AS revisions`,
    );
    expect({ pages, revisions }).toEqual({ pages: 1, revisions: 1 });
  });

  it('two imports of one new page at once: one creates it, the other finds it there (unchanged, or updated when its text differs), none fails', async () => {
    const author = await t.as('author');
    for (const [second, expected] of [['Same text.', 'unchanged'], ['Other text.', 'updated']] as const) {
      const title = `Import Race ${expected}`;
      // Both imports look the page up (absent), then queue on its name's lock as they create it.
      const gate = await holdLock(t.dataSource, `SELECT ${lockKeySql(LINK_KEY_LOCKS, '$1')}`, [linkKey(title)]);
      const send = (body: string) => author.post('/api/import').send({ pages: [{ path: `${title}.md`, title, body }] }).then((r) => r);
      const imports = [send('Same text.'), send(second)];
      await waitFor('both imports to queue', async () => (await gate.waiting()) >= 2);
      await gate.release();
      const answers = await Promise.all(imports);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      const statuses = answers.map((r) => r.body.results[0].status).sort();
      expect(statuses).toEqual(['created', expected].sort());
    }
  });
});
