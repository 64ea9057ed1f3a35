// Issue 17 item 3: an LLM extractor may give an entity other names (a synonym, an abbreviation, what other tools
// call it). They travel with the proposal, an admin sees them in the review, and once the proposal is approved the
// entity's aliases hold them, so a reader's search for the word the wiki never uses finds the page.
// Through the real Ollama client, against a local server that speaks Ollama's API (test/support/fake-ollama.ts).
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkTextOfOllamaRequest, startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

const PAGE = [
  '---',
  'cluster: docs',
  '---',
  'Embeds show one note inside another. Write an embed with an exclamation mark before the link.',
  '',
  'A second paragraph says the same thing twice, so that the page has words of its own.',
].join('\n');

/** What the model answers: the entity with other names, one of them twice and one the name itself in another case. */
function answer(chunk: string): string {
  // A second page's chunk: the same entity with another name, and one the first page's answer gave too.
  if (chunk.includes('Embeds can show a heading')) {
    return JSON.stringify({
      entities: [{ name: 'embeds', type: 'concept', confidence: 0.7, evidence: 'Embeds can show a heading of another note.', aliases: ['Embed syntax', 'transclusion'] }],
      relations: [],
    });
  }
  if (!chunk.includes('Embeds show one note')) return JSON.stringify({ entities: [], relations: [] });
  return JSON.stringify({
    entities: [
      {
        name: 'Embeds',
        type: 'concept',
        confidence: 0.9,
        evidence: 'Embeds show one note inside another.',
        aliases: ['transclusion', 'Transclusion', 'embeds', 'note embedding', '', 42, 'x'.repeat(300)],
      },
    ],
    relations: [],
  });
}

describe('other names an LLM extractor gives an entity', () => {
  let fake: FakeOllama;
  let t: TestApp;
  let admin: supertest.Agent;

  beforeAll(async () => {
    fake = await startFakeOllama({ respond: (request) => ({ kind: 'chat', content: answer(chunkTextOfOllamaRequest(request)) }) });
    t = await startTestApp({ env: { KURATE_EXTRACTOR: 'ollama', OLLAMA_HOST: fake.url, KURATE_JOB_POLL_SECONDS: '0.5' } });
    admin = await t.as('admin');
    await startWorker(t);
    await admin.post('/api/pages').send({ title: 'Showing notes inside notes', body: PAGE }).expect(201);
    await admin.post('/api/pages').send({ title: 'Headings', body: '---\ncluster: docs\n---\nEmbeds can show a heading of another note.\n' }).expect(201);
    await setPolicy(admin, 'docs', 'include');
    await waitForJobs(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('asks for them: the prompt and the answer schema name "aliases"', () => {
    const [request] = fake.requestsTo('/api/chat');
    const sent = JSON.stringify(request.body);
    expect(sent).toContain('aliases');
    expect(sent).toContain('transclusion');
  });

  it('keeps them with the proposal (cleaned, and united over the pages that propose it) and shows them in the review', async () => {
    const queue = await admin.get('/admin/knowledge-graph/proposals').query({ status: 'pending', kind: 'node' }).expect(200);
    const proposal = queue.body.items.find((p: { name: string }) => p.name === 'Embeds');
    expect(proposal).toBeDefined();
    expect(proposal.supportCount).toBe(2);
    expect(proposal.aliases).toEqual(['Embed syntax', 'note embedding', 'transclusion']);
    const page = await admin.get(`/admin/knowledge-graph/ui/proposals/${proposal.id}`).set('Accept', 'text/html').expect(200);
    expect(page.text).toContain('Also called');
    expect(page.text).toContain('transclusion');
  });

  it('approved, they are the entity’s aliases, and search finds the page by a word it never uses', async () => {
    const reader = await t.as('reader');
    const before = await reader.get('/api/search').query({ q: 'transclusion' }).expect(200);
    expect(before.body.hits.map((h: { slug: string }) => h.slug)).not.toContain('showing-notes-inside-notes');

    const [{ id }] = await t.dataSource.query(`SELECT id::text AS id FROM kg_proposals WHERE kind = 'node' AND name = 'Embeds'`);
    await admin.post(`/admin/knowledge-graph/proposals/${id}/approve`).send({}).expect(200);
    const [node] = await t.dataSource.query(`SELECT id::text AS id, aliases FROM kg_nodes WHERE name = 'Embeds'`);
    expect(node.aliases).toEqual(expect.arrayContaining(['Embed syntax', 'note embedding', 'transclusion']));

    const after = await reader.get('/api/search').query({ q: 'transclusion' }).expect(200);
    expect(after.body.hits[0]?.slug).toBe('showing-notes-inside-notes');
    expect(after.body.entity?.name).toBe('Embeds');
  });
});
