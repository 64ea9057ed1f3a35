import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_POSTGRES } from '../../src/db/database.module.js';
import { SEARCH_NAMES_CHANNEL } from '../../src/search/search-names.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Every process reads its dictionary of names again when told so on the kurate_search_names channel (migrations
 * 0012 and 0022). A save that changes no name, and no page's inclusion, must not tell it: under a mixed load the
 * reloads ran many times a second (issue 18). A change of name must.
 */
describe('search names: notified when a name changes, not on every save', () => {
  let t: TestApp;
  let author: supertest.Agent;
  const heard: string[] = [];
  let stopListening: () => Promise<void> = async () => {};
  let marker = 0;

  /** Notifications arrive in commit order: a marker sent after a write says that the write's own have arrived. */
  async function notificationsOf(write: () => Promise<unknown>): Promise<string[]> {
    heard.length = 0;
    await write();
    const mine = `marker-${++marker}`;
    await t.dataSource.query('SELECT pg_notify($1, $2)', [SEARCH_NAMES_CHANNEL, mine]);
    const deadline = Date.now() + 10_000;
    while (!heard.includes(mine)) {
      if (Date.now() > deadline) throw new Error('the marker notification never arrived');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return heard.slice(0, heard.indexOf(mine));
  }

  beforeAll(async () => {
    t = await startTestApp();
    author = await t.as('author');
    const pglite = t.app.get<symbol, PGlite | null>(EMBEDDED_POSTGRES);
    if (pglite) {
      stopListening = await pglite.listen(SEARCH_NAMES_CHANNEL, (payload) => heard.push(payload));
    } else {
      const client = new pg.Client({ connectionString: t.config.database.kind === 'postgres' ? t.config.database.url : '' });
      await client.connect();
      client.on('notification', (n) => heard.push(n.payload ?? ''));
      await client.query(`LISTEN ${SEARCH_NAMES_CHANNEL}`);
      stopListening = () => client.end();
    }
    // Through the marker: the creation's own notification must have arrived before the first test clears `heard`
    // (on a busy machine it came after the response, and the first test heard it).
    await notificationsOf(() => author.post('/api/pages').send({ title: 'Alpha', body: '---\ncluster: docs\n---\nFirst words. See [[Beta]].' }).expect(201));
  });
  afterAll(async () => {
    await stopListening();
    await t?.close();
  });

  it('is not notified when a save changes only the text', async () => {
    const { version } = (await author.get('/api/pages/alpha').expect(200)).body as { version: number };
    const got = await notificationsOf(() =>
      author.put('/api/pages/alpha').send({ body: '---\ncluster: docs\n---\nOther words. See [[Beta]].', baseVersion: version }).expect(200),
    );
    expect(got).toEqual([]);
  });

  it('is notified when a page is created or a page gets an alias', async () => {
    expect(await notificationsOf(() => author.post('/api/pages').send({ title: 'Beta', body: 'The second page.' }).expect(201))).toContain('');
    const { version } = (await author.get('/api/pages/alpha').expect(200)).body as { version: number };
    const aliased = await notificationsOf(() =>
      author.put('/api/pages/alpha').send({ body: '---\ncluster: docs\naliases: [First]\n---\nOther words.', baseVersion: version }).expect(200),
    );
    expect(aliased).toContain('');
  });
});
