import type { Agent } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

// /recent groups revisions as MediaWiki's enhanced recent changes does: one line per page and day, with the number
// of changes, who made them, the day's diff, and each change inside an expandable <details>.

let t: TestApp;
let ada: Agent;
let bob: Agent;

beforeAll(async () => {
  t = await startTestApp();
  ada = await t.as('author', { name: 'Ada' });
  bob = await t.as('author', { name: 'Bob' });
});

afterAll(async () => {
  await t?.close();
});

async function edit(agent: Agent, slug: string, body: string, message: string) {
  const current = (await agent.get(`/api/pages/${slug}`).expect(200)).body as { version: number };
  await agent.put(`/api/pages/${slug}`).send({ body, baseVersion: current.version, message }).expect(200);
}

/** The <li class="recent-line"> items of the page, per day heading. */
function linesByDay(html: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  // Handlebars writes "=" in attributes as &#x3D;, harmless in a browser.
  for (const section of html.replaceAll('&#x3D;', '=').split('<section class="recent-day"').slice(1)) {
    const day = /<time datetime="(\d{4}-\d{2}-\d{2})">/.exec(section)![1];
    out[day] = section.split('<li class="recent-line">').slice(1);
  }
  return out;
}

describe('recent changes, grouped by page and day', () => {
  let today: string;

  beforeAll(async () => {
    await ada.post('/api/pages').send({ title: 'Busy Page', body: 'one' }).expect(201);
    await edit(ada, 'busy-page', 'two', 'second');
    await edit(bob, 'busy-page', 'three', 'third <by bob>');
    await edit(ada, 'busy-page', 'four', 'fourth');
    await bob.post('/api/pages').send({ title: 'Quiet Page', body: 'just once' }).expect(201);
    // An older day: Quiet Page's creation moved back two days, as if it had been written then.
    await t.dataSource.query(
      `UPDATE page_revisions SET created_at = created_at - interval '2 days' WHERE page_id = (SELECT id FROM pages WHERE slug = 'quiet-page')`,
    );
    today = new Date().toISOString().slice(0, 10);
  });

  it('shows one line per page per day with the count, the authors and the day’s diff', async () => {
    const res = await t.http.get('/recent').expect(200);
    const days = linesByDay(res.text);
    const busy = (days[today] ?? []).filter((line) => line.includes('href="/page/busy-page"'));
    expect(busy).toHaveLength(1);
    expect(busy[0]).toContain('<span class="badge">new</span> 4 changes');
    // Authors in the order of their newest change that day (v4 Ada, v3 Bob, v2 and v1 Ada).
    expect(busy[0]).toContain('<span class="recent-authors">Ada ×3, Bob</span>');
    // Created today: no diff for the day, but the history; each change inside the details, newest first.
    expect(busy[0]).not.toMatch(/diff\?from=0/);
    const versions = [...busy[0].matchAll(/href="\/page\/busy-page\/revisions\/(\d+)"/g)].map((m) => Number(m[1]));
    expect(versions).toEqual([4, 3, 2, 1]);
    expect(busy[0]).toContain('third &lt;by bob&gt;');
    expect(busy[0]).toContain('href="/page/busy-page/diff?from=2&amp;to=3"');
    expect(busy[0]).toMatch(/<details class="recent-details">/);
  });

  it('puts a page changed on another day under that day', async () => {
    const res = await t.http.get('/recent').expect(200);
    const days = linesByDay(res.text);
    const older = Object.keys(days).filter((d) => d < today);
    expect(older).toHaveLength(1);
    expect(days[older[0]].filter((line) => line.includes('href="/page/quiet-page"'))).toHaveLength(1);
    expect((days[today] ?? []).some((line) => line.includes('href="/page/quiet-page"'))).toBe(false);
    // Days run newest first.
    expect(Object.keys(days)).toEqual([today, older[0]]);
  });

  it('gives a day’s diff across its changes when the page existed before', async () => {
    await t.dataSource.query(
      `UPDATE page_revisions SET created_at = created_at - interval '1 day' WHERE version = 1 AND page_id = (SELECT id FROM pages WHERE slug = 'busy-page')`,
    );
    const res = await t.http.get('/recent').expect(200);
    const busy = (linesByDay(res.text)[today] ?? []).filter((line) => line.includes('href="/page/busy-page"'));
    expect(busy[0]).toContain('3 changes');
    expect(busy[0]).not.toContain('<span class="badge">new</span>');
    expect(busy[0]).toContain('<a href="/page/busy-page/diff?from=1&amp;to=4">diff</a>');
  });
});
