import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const BASE = '/admin/knowledge-graph';
const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>/;
const INLINE_STYLE = /\sstyle=|<style/;

describe('/admin/knowledge-graph web UI', () => {
  let t: TestApp;
  let kg: KgFactory;
  let browser: supertest.Agent;
  let csrf: string;

  const html = async (path: string, status = 200) => {
    const res = await browser.get(path).set('Accept', 'text/html');
    expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(status);
    return res.text;
  };
  /** Posts a form as a browser does (repeated fields for lists). */
  const form = (path: string, fields: Record<string, string | string[]>, token = csrf) => {
    const body = new URLSearchParams({ _csrf: token });
    for (const [k, v] of Object.entries(fields)) for (const value of [v].flat()) body.append(k, value);
    return browser.post(path).type('form').set('Accept', 'text/html').send(body.toString());
  };
  const status = async (id: string) => ((await t.dataSource.query('SELECT status FROM kg_proposals WHERE id = $1', [id])) as { status: string }[])[0].status;

  beforeAll(async () => {
    t = await startTestApp();
    kg = await KgFactory.for(t);
    ({ agent: browser, csrfToken: csrf } = await t.login(await t.user('admin', { name: 'Hedy' })));
  });
  afterAll(() => t?.close());

  it('is the review queue the policy page links to, and refuses readers, authors and anonymous visitors', async () => {
    const policy = await html('/admin/kg-policy');
    expect(policy).toContain('href="/admin/knowledge-graph"');
    const queue = await html(BASE);
    expect(queue).toContain('<h1 class="page-title">Review queue</h1>');
    expect(queue).toContain('<link rel="stylesheet" href="/static/css/review.css">');
    expect(queue).toContain('<script src="/static/js/review.js" defer></script>');
    for (const role of ['reader', 'author'] as const) {
      const who = await t.login(await t.user(role));
      await who.agent.get(BASE).set('Accept', 'text/html').expect(403);
      await who.agent.get(`${BASE}/ui/entities`).set('Accept', 'text/html').expect(403);
    }
    const anonymous = await t.http.get(BASE).set('Accept', 'text/html').expect(303);
    expect(anonymous.headers.location).toBe('/login?next=%2Fadmin%2Fknowledge-graph');
  });

  it('shows proposals with their evidence highlighted, filters, keyboard help, and no inline script or style', async () => {
    const p = await kg.passage('Web Page', 'Marie Curie discovered polonium in Paris.', { headingPath: ['History'] });
    const marie = await kg.nodeProposal({ name: 'Marie Curie', type: 'person', confidence: 0.93, support: [{ ...p, quote: 'Marie Curie' }] });
    await kg.nodeProposal({ name: 'Polonium', type: 'concept', confidence: 0.7, support: [{ ...p, quote: 'polonium' }] });
    const page = await html(BASE);
    expect(page).toContain(`id="p-${marie}"`);
    expect(page).toContain('<mark>Marie Curie</mark> discovered polonium in Paris.');
    expect(page).toContain('<a href="/page/web-page#history">Web Page › History</a>');
    expect(page).toContain('<kbd>j</kbd>/<kbd>k</kbd> next/previous');
    expect(page).toContain('form="bulk-form"');
    expect(page).not.toMatch(INLINE_SCRIPT);
    expect(page).not.toMatch(INLINE_STYLE);
    const filtered = await html(`${BASE}?type=person&minConfidence=0.9`);
    expect(filtered).toContain('Marie Curie');
    expect(filtered).not.toContain('Polonium');
    expect(filtered).toContain('<option value="person" selected>person</option>');
    expect(await html(`${BASE}?type=alien`, 400)).toContain('type must be one of');
    expect(await html(`${BASE}?after=garbage`, 400)).toContain('That page cursor is not valid');
    const detail = await html(`${BASE}/ui/proposals/${marie}?return=${encodeURIComponent(`${BASE}?type=person`)}`);
    expect(detail).toContain('href="/admin/knowledge-graph?type&#x3D;person"');
    expect(detail).toContain('Every supporting page');
    await html(`${BASE}/ui/proposals/987654`, 404);
  });

  it('folds the filters into one line with chips that each remove their filter, and opens the panel when a filter is wrong', async () => {
    const plain = await html(BASE);
    expect(plain).toContain('<details class="kg-filter-panel">');
    expect(plain).not.toContain('class="kg-chips"');
    const filtered = (await html(`${BASE}?type=person&minConfidence=0.9&q=marie&sort=age`)).replaceAll('&#x3D;', '=');
    expect(filtered).toContain('<summary class="button">Filters <span class="kg-filter-count">(3)</span></summary>');
    const chips = [...filtered.matchAll(/<a class="chip kg-chip" href="([^"]+)" title="Remove this filter">([^<]+) <span/g)].map((m) => [m[2], m[1].replaceAll('&amp;', '&')]);
    // Each chip's link keeps the other filters and the sort, and drops its own.
    expect(chips).toEqual([
      ['type: person', '/admin/knowledge-graph?minConfidence=0.9&q=marie&sort=age'],
      ['confidence ≥ 0.9', '/admin/knowledge-graph?type=person&q=marie&sort=age'],
      ['name contains “marie”', '/admin/knowledge-graph?type=person&minConfidence=0.9&sort=age'],
    ]);
    expect(filtered).toContain('<a href="/admin/knowledge-graph" class="kg-chip-clear">Clear all</a>');
    expect(await html(`${BASE}?status=rejected`)).toContain('>status: rejected <span');
    expect(await html(`${BASE}?minConfidence=2`, 400)).toContain('<details class="kg-filter-panel" open>');
  });

  it('shows the best passage of each proposal in the queue and folds the others; the proposal page shows them all', async () => {
    const passages = [];
    for (const [i, text] of ['Rosalind Franklin imaged DNA.', 'Rosalind Franklin worked in London.', 'Later, Rosalind Franklin studied viruses.'].entries()) {
      passages.push({ ...(await kg.passage(`Franklin ${i + 1}`, text)), quote: 'Rosalind Franklin' });
    }
    const rosalind = await kg.nodeProposal({ name: 'Rosalind Franklin', type: 'person', confidence: 0.91, support: passages });
    const queue = await html(`${BASE}?q=rosalind`);
    const card = queue.slice(queue.indexOf(`id="p-${rosalind}"`), queue.indexOf('</article>', queue.indexOf(`id="p-${rosalind}"`)));
    const folded = card.indexOf('<details class="kg-more-evidence">');
    expect(folded).toBeGreaterThan(0);
    expect(card.slice(0, folded).match(/<blockquote class="kg-evidence">/g)).toHaveLength(1);
    expect(card.slice(folded)).toMatch(/<summary>2 more passages<\/summary>/);
    expect(card.slice(folded).match(/<blockquote class="kg-evidence">/g)).toHaveLength(2);
    // Three pages support it: the queue names them.
    expect(card).toContain('<span class="fact-label">Supported by</span>');
    const page = await html(`${BASE}/ui/proposals/${rosalind}`);
    const own = page.slice(page.indexOf(`id="p-${rosalind}"`), page.indexOf('</article>', page.indexOf(`id="p-${rosalind}"`)));
    expect(own).not.toContain('kg-more-evidence');
    expect(own.match(/<blockquote class="kg-evidence">/g)).toHaveLength(3);
  });

  it('approves after editing, through the form; goes back to the queue with what happened and an undo button', async () => {
    const p = await kg.passage('Form Page', 'Tim Berners Lee made the web.');
    const tim = await kg.nodeProposal({ name: 'Tim Berners Lee', type: 'concept', support: [p] });
    const next = await kg.nodeProposal({ name: 'The Web', type: 'concept', support: [p] });
    const back = `${BASE}?q=e`;
    const res = await form(`${BASE}/ui/proposals/${tim}/approve`, { name: 'Tim Berners-Lee', type: 'person', note: '', return: back, next }).expect(303);
    expect(res.headers.location).toMatch(new RegExp(`^/admin/knowledge-graph\\?q=e&done=\\d+&focus=${next}$`));
    const after = await html(res.headers.location);
    expect(after).toContain('Approved node “Tim Berners-Lee” (person) (edited) as a new entity.');
    expect(after).toMatch(/<form method="post" action="\/admin\/knowledge-graph\/ui\/audit\/\d+\/undo"/);
    expect(after).toContain(`data-focus="${next}"`);
    expect(await status(tim)).toBe('approved');
    // Already reviewed: the queue says so, with 409.
    const again = await form(`${BASE}/ui/proposals/${tim}/reject`, { reason: 'late', return: back }).expect(409);
    expect(again.text).toContain('was already reviewed: approved by Hedy');
    // Undo from the notice.
    const undoId = /ui\/audit\/(\d+)\/undo/.exec(after)![1];
    const undone = await form(`${BASE}/ui/audit/${undoId}/undo`, { return: back }).expect(303);
    expect(await html(undone.headers.location)).toContain(`Undid #${undoId}: Approved node “Tim Berners-Lee”`);
    expect(await status(tim)).toBe('pending');
  });

  it('rejects with a reason, and refuses a form without its CSRF token or with a return address elsewhere', async () => {
    const id = await kg.nodeProposal({ name: 'Web Noise', type: 'concept' });
    await form(`${BASE}/ui/proposals/${id}/reject`, { reason: 'noise' }, 'wrong-token').expect(403);
    expect(await status(id)).toBe('pending');
    const res = await form(`${BASE}/ui/proposals/${id}/reject`, { reason: 'noise', return: 'https://evil.example/' }).expect(303);
    expect(res.headers.location).toMatch(/^\/admin\/knowledge-graph\?done=\d+$/);
    expect(await status(id)).toBe('rejected');
    await form(`${BASE}/ui/proposals/${id}/approve`, { return: '//evil.example/x' }).expect(409);
  });

  it('bulk-approves a selection, and everything matching after a confirmation that says how many', async () => {
    const p = await kg.passage('Bulk Web', 'Oxygen, Hydrogen and Helium.');
    const ids = await Promise.all(['Oxygen', 'Hydrogen', 'Helium'].map((name, i) => kg.nodeProposal({ name, type: 'concept', confidence: 0.5 + i * 0.2, support: [p] })));
    await form(`${BASE}/ui/bulk`, { action: 'approve', ids: [ids[0], ids[1]], return: BASE }).expect(303);
    expect([await status(ids[0]), await status(ids[1]), await status(ids[2])]).toEqual(['approved', 'approved', 'pending']);
    expect((await form(`${BASE}/ui/bulk`, { action: 'approve', return: BASE }).expect(400)).text).toContain('Select some proposals first');
    // A form that does not say which action (no button, a mistyped or repeated value) approves nothing: it used to.
    for (const action of [undefined, '', 'Reject', 'bogus', ['reject', 'reject']]) {
      const answer = await form(`${BASE}/ui/bulk`, { ...(action === undefined ? {} : { action }), ids: [ids[2]], reason: 'noise', return: BASE }).expect(400);
      expect(answer.text).toContain('the form did not say which');
    }
    expect(await status(ids[2])).toBe('pending');
    const queuePage = await form(`${BASE}/ui/bulk`, { scope: 'matching', action: 'approve!', bulkMinConfidence: '0.5', return: BASE }).expect(400);
    expect(queuePage.text).toContain('the form did not say which');
    // Enter in the reason field submits nothing: the form's default button is a disabled one, ahead of the two actions.
    const queueHtml = (await browser.get(BASE).expect(200)).text;
    const bulkForm = /<form id="bulk-form"[\s\S]*?<\/form>/.exec(queueHtml)![0];
    expect(/<button[^>]*type="submit"[^>]*>/.exec(bulkForm)![0]).toContain('disabled');

    const more = await Promise.all(['Neon', 'Argon'].map((name) => kg.nodeProposal({ name, type: 'concept', confidence: 0.95, support: [p] })));
    const confirm = await form(`${BASE}/ui/bulk`, { scope: 'matching', action: 'reject', page: 'bulk-web', bulkMinConfidence: '0.8', reason: 'noble', return: BASE }).expect(200);
    expect(confirm.text).toContain('Reject 3 proposals?');
    expect(confirm.text).toContain('confidence ≥ 0.8 (page bulk-web)');
    expect(await status(more[0])).toBe('pending');
    await form(`${BASE}/ui/bulk`, { scope: 'matching', action: 'reject', page: 'bulk-web', bulkMinConfidence: '0.8', reason: 'noble', confirm: 'yes', return: BASE }).expect(303);
    expect([await status(more[0]), await status(more[1]), await status(ids[2])]).toEqual(['rejected', 'rejected', 'rejected']);
    expect((await form(`${BASE}/ui/bulk`, { scope: 'matching', action: 'approve', bulkMinConfidence: '7', return: BASE }).expect(400)).text).toContain('from 0 to 1');
  });

  it('curates: entity list, page with graph, edit, merge, delete, edges, history, gaps, export and import', async () => {
    const created = await form(`${BASE}/ui/entities`, { name: 'Ada Lovelace', type: 'person', aliases: 'Countess of Lovelace\nAda', description: 'Wrote the first program' }).expect(303);
    const adaHref = created.headers.location.split('?')[0];
    const ada = adaHref.split('/').pop()!;
    const entityPage = await html(created.headers.location);
    expect(entityPage).toContain('Created entity “Ada Lovelace” (person).');
    expect(entityPage).toContain(`data-kg-graph="/admin/knowledge-graph/entities/${ada}/graph"`);
    expect(entityPage).toContain('<script src="/static/vendor/cytoscape/cytoscape.min.js" defer></script>');
    expect(entityPage).not.toMatch(INLINE_SCRIPT);
    expect(entityPage).not.toMatch(INLINE_STYLE);
    expect((await form(`${BASE}/ui/entities`, { name: 'Ada Lovelace', type: 'person' }).expect(409)).text).toContain('exists already');

    const list = await html(`${BASE}/ui/entities?q=lovelace`);
    expect(list).toContain(`<a href="${adaHref}">Ada Lovelace</a>`);
    expect(await html(`${BASE}/ui/entities?type=alien`, 400)).toContain('type must be one of');

    expect(await html(`${adaHref}/edit`)).toContain('value="Ada Lovelace"');
    await form(`${adaHref}/edit`, { name: 'Augusta Ada King', type: 'person', aliases: 'Ada Lovelace', description: '' }).expect(303);
    expect(await html(adaHref)).toContain('Augusta Ada King');
    expect((await form(`${adaHref}/edit`, { name: '', type: 'person' }).expect(400)).text).toContain('name may not be empty');

    const babbage = (await form(`${BASE}/ui/entities`, { name: 'Charles Babbage', type: 'person' }).expect(303)).headers.location.split('?')[0].split('/').pop()!;
    const engine = (await form(`${BASE}/ui/entities`, { name: 'Analytical Engine', type: 'product' }).expect(303)).headers.location.split('?')[0].split('/').pop()!;
    const edge = await form(`${BASE}/ui/edges`, { from: babbage, direction: 'out', predicate: 'created_by', other: 'analytical engine' }).expect(303);
    expect(edge.headers.location).toMatch(new RegExp(`/ui/entities/${babbage}\\?done=\\d+$`));
    expect((await form(`${BASE}/ui/edges`, { from: babbage, predicate: 'uses', other: 'Nobody At All' }).expect(400)).text).toContain('No entity is called “Nobody At All”');
    const edgeId = ((await t.dataSource.query(`SELECT id::text AS id FROM kg_edges WHERE source_node_id = $1 AND target_node_id = $2`, [babbage, engine])) as { id: string }[])[0].id;
    expect(await html(`${BASE}/ui/edges/${edgeId}`)).toContain('Charles Babbage');
    await form(`${BASE}/ui/edges/${edgeId}`, { predicate: 'related_to', swap: 'on', weight: '2' }).expect(303);
    expect(((await t.dataSource.query('SELECT source_node_id::text AS s, predicate FROM kg_edges WHERE id = $1', [edgeId])) as Record<string, string>[])[0]).toEqual({ s: engine, predicate: 'related_to' });

    const merge = await html(`${BASE}/ui/entities/${babbage}/merge?q=king`);
    expect(merge).toContain('Merge “Charles Babbage” into “Augusta Ada King”');
    const merged = await form(`${BASE}/ui/entities/${babbage}/merge`, { into: ada }).expect(303);
    expect(merged.headers.location).toMatch(new RegExp(`/ui/entities/${ada}\\?done=\\d+$`));
    const mergedPage = await html(merged.headers.location);
    expect(mergedPage).toContain('Merged “Charles Babbage” (person) into “Augusta Ada King” (person)');
    const undoId = /ui\/audit\/(\d+)\/undo/.exec(mergedPage)![1];
    const history = await html(`${BASE}/ui/audit`);
    expect(history).toContain('entity merge');
    await form(`${BASE}/ui/audit/${undoId}/undo`, { return: `${BASE}/ui/audit` }).expect(303);
    expect(await kg.count('kg_nodes', 'id = $1', [babbage])).toBe(1);
    expect((await form(`${BASE}/ui/audit/${undoId}/undo`, { return: `${BASE}/ui/audit` }).expect(409)).text).toContain('was already undone');

    const confirmDelete = await html(`${BASE}/ui/entities/${engine}/delete`);
    expect(confirmDelete).toContain('also deletes <strong>1 edge</strong>');
    const deleted = await form(`${BASE}/ui/entities/${engine}/delete`, { reject: 'on', reason: 'museum piece' }).expect(303);
    expect(await html(deleted.headers.location)).toContain('Deleted entity “Analytical Engine” (product) with 1 edge');
    await html(`${BASE}/ui/entities/${engine}`, 404);

    expect(await html(`${BASE}/ui/gaps`)).toContain('Pages worth writing');
    await html(`${BASE}/ui/gaps?minPages=1`, 400);
    const transfer = await html(`${BASE}/ui/transfer`);
    expect(transfer).toContain('href="/admin/knowledge-graph/export?format=graphml"');
    const bad = await form(`${BASE}/ui/import`, { graph: '{not json', mode: 'pending' }).expect(400);
    expect(bad.text).toContain('That is not valid JSON');
    expect(bad.text).toContain('{not json');
    // The JSON typed into the form passes the input rules of every JSON body: a NUL (written as \u0000 in the JSON)
    // and nesting 20,000 deep are a 400 naming where, with the text kept, never a 500.
    const nul = await form(`${BASE}/ui/import`, { graph: '{"nodes":[{"id":"n1","name":"Nul\\u0000Name","type":"concept"}],"edges":[]}', mode: 'pending', reason: 'x' }).expect(400);
    expect(nul.text).toContain('nodes[0].name');
    expect(nul.text).toContain('Nul\\u0000Name');
    const deep = await form(`${BASE}/ui/import`, { graph: `{"nodes":${'['.repeat(20_000)}${']'.repeat(20_000)}}`, mode: 'pending', reason: 'x' }).expect(400);
    expect(deep.text).toContain('nested more than 64 levels deep');
    await form(`${BASE}/ui/import`, { graph: '{"nodes":[]}', typeMap: `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`, mode: 'pending', reason: 'x' }).expect(400);
    const checked = await form(`${BASE}/ui/import`, { graph: JSON.stringify({ nodes: [{ id: '1', name: 'Imported Thing', type: 'widget' }] }), mode: 'pending', typeMap: '{"widget": "product"}', dryRun: 'on' }).expect(200);
    expect(checked.text).toContain('type “widget” read as <code>product</code>');
    expect(checked.text).toContain('Check (nothing written)');
    const imported = await form(`${BASE}/ui/import`, { graph: JSON.stringify({ nodes: [{ id: '1', name: 'Imported Thing', type: 'product' }] }), mode: 'approved', reason: '' }).expect(400);
    expect(imported.text).toContain('needs a reason');
  });
});
