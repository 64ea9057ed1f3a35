import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgFactory } from '../support/kg-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const BASE = '/admin/knowledge-graph';

describe('taking a rejection back: /proposals/:id/reopen and /rejections', () => {
  let t: TestApp;
  let kg: KgFactory;
  let admin: supertest.Agent;

  beforeAll(async () => {
    t = await startTestApp();
    kg = await KgFactory.for(t);
    admin = await t.as('admin', { name: 'Katherine' });
  });
  afterAll(() => t?.close());

  const proposal = async (id: string) =>
    ((await t.dataSource.query('SELECT status, reviewed_by, review_note, signature FROM kg_proposals WHERE id = $1', [id])) as {
      status: string; reviewed_by: string | null; review_note: string | null; signature: string;
    }[])[0];
  const rejected = async (signature: string) =>
    ((await t.dataSource.query('SELECT count(*)::int AS n FROM kg_rejections WHERE signature = $1', [signature])) as { n: number }[])[0].n;

  it('puts a rejected proposal back in the queue and forgets its signature; undo rejects it again', async () => {
    const passage = await kg.passage('Orbit Notes', 'Kepler described elliptical orbits.');
    const id = await kg.nodeProposal({ name: 'Kepler', type: 'person', support: [{ ...passage, quote: 'Kepler' }] });
    await admin.post(`${BASE}/proposals/${id}/reject`).send({ reason: 'thought it noise' }).expect(200);
    const { signature } = await proposal(id);
    expect(await rejected(signature)).toBe(1);

    const res = await admin.post(`${BASE}/proposals/${id}/reopen`).send({}).expect(200);
    expect(res.body).toMatchObject({ status: 'pending', rejectionCleared: true });
    expect(res.body.summary).toBe('Reopened node “Kepler” (person): it is pending review again, and extraction may propose it again.');
    expect(await proposal(id)).toMatchObject({ status: 'pending', reviewed_by: null, review_note: null });
    expect(await rejected(signature)).toBe(0);
    const listed = await admin.get(`${BASE}/proposals`).expect(200);
    expect(listed.body.items.map((i: { id: string }) => i.id)).toContain(id);

    const audit: { action: string; target: string }[] = await t.dataSource.query(`SELECT action, target FROM audit_log WHERE action = 'kg.proposal.reopen'`);
    expect(audit).toEqual([{ action: 'kg.proposal.reopen', target: `proposal:${id}` }]);

    await admin.post(`${BASE}/audit/${res.body.actionId}/undo`).send({}).expect(200);
    expect(await proposal(id)).toMatchObject({ status: 'rejected', reviewed_by: 'Katherine', review_note: 'thought it noise' });
    expect(await rejected(signature)).toBe(1);
  });

  it('retires a reopened proposal that no page supports any more', async () => {
    const passage = await kg.passage('Old Notes', 'Tycho kept careful records.');
    const id = await kg.nodeProposal({ name: 'Tycho', type: 'person', support: [{ ...passage, quote: 'Tycho' }] });
    await admin.post(`${BASE}/proposals/${id}/reject`).send({}).expect(200);
    await t.dataSource.query('DELETE FROM kg_proposal_support WHERE proposal_id = $1', [id]);
    const res = await admin.post(`${BASE}/proposals/${id}/reopen`).send({}).expect(200);
    expect(res.body.status).toBe('retired');
    expect(res.body.summary).toContain('no page supports it any more');
    expect((await proposal(id)).status).toBe('retired');
    expect(await rejected((await proposal(id)).signature)).toBe(0);
  });

  it('refuses what is not rejected, what does not exist, and a signature already pending again', async () => {
    const passage = await kg.passage('Star Notes', 'Galileo watched Jupiter.');
    const id = await kg.nodeProposal({ name: 'Galileo', type: 'person', support: [{ ...passage, quote: 'Galileo' }] });
    const pending = await admin.post(`${BASE}/proposals/${id}/reopen`).send({}).expect(409);
    expect(pending.body.message).toBe(`Proposal ${id} is pending, not rejected: there is no rejection to take back.`);
    await admin.post(`${BASE}/proposals/987654/reopen`).send({}).expect(404);
    // Supported only by a page the policy excludes: hidden from review, so not there to reopen either.
    const secret = await kg.page('Secret Orbits', { body: 'Nibiru is hidden.', include: false });
    const hidden = await kg.nodeProposal({ name: 'Nibiru', support: [{ chunkId: await kg.chunk(secret.id, 'Nibiru is hidden.'), pageId: secret.id, quote: 'Nibiru' }] });
    await t.dataSource.query(`UPDATE kg_proposals SET status = 'rejected' WHERE id = $1`, [hidden]);
    await admin.post(`${BASE}/proposals/${hidden}/reopen`).send({}).expect(404);
    expect((await proposal(hidden)).status).toBe('rejected');
    await admin.post(`${BASE}/proposals/not-an-id/reopen`).send({}).expect(400);

    await admin.post(`${BASE}/proposals/${id}/reject`).send({}).expect(200);
    // The rejection was undone elsewhere and extraction proposed the same thing again meanwhile.
    const { signature } = await proposal(id);
    await t.dataSource.query('DELETE FROM kg_rejections WHERE signature = $1', [signature]);
    const twin = await kg.nodeProposal({ name: 'Galileo', type: 'person', support: [{ ...passage, quote: 'Galileo' }] });
    const res = await admin.post(`${BASE}/proposals/${id}/reopen`).send({}).expect(409);
    expect(res.body.message).toBe(`Proposal ${twin} proposes the same node and is pending: review that one instead.`);
    expect((await proposal(id)).status).toBe('rejected');
  });

  it('is for admins only', async () => {
    const author = await t.as('author');
    await author.post(`${BASE}/proposals/1/reopen`).send({}).expect(403);
    await author.get(`${BASE}/rejections`).expect(403);
    await author.post(`${BASE}/rejections/forget`).send({ kind: 'node', signature: 'x' }).expect(403);
  });

  it('lists remembered rejections with their proposal, and forgets one that has none (an entity deleted and rejected)', async () => {
    const passage = await kg.passage('Moon Notes', 'Selene is a moon goddess.');
    const id = await kg.nodeProposal({ name: 'Selene', type: 'concept', support: [{ ...passage, quote: 'Selene' }] });
    await admin.post(`${BASE}/proposals/${id}/reject`).send({ reason: 'myth' }).expect(200);
    await t.dataSource.query(`INSERT INTO kg_rejections (kind, signature, reason, rejected_by) VALUES ('edge', 'a|uses|b', 'wrong', 'Katherine')`);

    const all = await admin.get(`${BASE}/rejections`).expect(200);
    const selene = all.body.items.find((r: { proposalId: string | null }) => r.proposalId === id);
    expect(selene).toMatchObject({ kind: 'node', reason: 'myth', rejectedBy: 'Katherine', label: 'Selene' });
    const edges = await admin.get(`${BASE}/rejections?kind=edge`).expect(200);
    expect(edges.body).toMatchObject({ total: 1, items: [{ kind: 'edge', signature: 'a|uses|b', proposalId: null, label: null }] });
    expect((await admin.get(`${BASE}/rejections?limit=1`).expect(200)).body.items).toHaveLength(1);
    expect((await admin.get(`${BASE}/rejections?kind=both`).expect(400)).body.message).toContain('kind must be node or edge');

    const forgot = await admin.post(`${BASE}/rejections/forget`).send({ kind: 'edge', signature: 'a|uses|b' }).expect(200);
    expect(forgot.body.summary).toBe('Forgot the rejection of the edge signature “a|uses|b”: extraction may propose it again.');
    expect((await admin.get(`${BASE}/rejections?kind=edge`).expect(200)).body.total).toBe(0);
    await admin.post(`${BASE}/rejections/forget`).send({ kind: 'edge', signature: 'a|uses|b' }).expect(404);
    expect((await admin.post(`${BASE}/rejections/forget`).send({ kind: 'edge' }).expect(400)).body.message).toContain('signature');
    await admin.post(`${BASE}/audit/${forgot.body.actionId}/undo`).send({}).expect(200);
    expect((await admin.get(`${BASE}/rejections?kind=edge`).expect(200)).body.total).toBe(1);
  });

  it('offers "Take the rejection back" on a rejected proposal’s page, and the form reopens it', async () => {
    const { agent: browser, csrfToken } = await t.login(await t.user('admin', { name: 'Dorothy' }));
    const passage = await kg.passage('Comet Notes', 'Halley predicted the comet.');
    const id = await kg.nodeProposal({ name: 'Halley', type: 'person', support: [{ ...passage, quote: 'Halley' }] });
    const before = await browser.get(`${BASE}/ui/proposals/${id}`).set('Accept', 'text/html').expect(200);
    expect(before.text).not.toContain(`ui/proposals/${id}/reopen`);
    await admin.post(`${BASE}/proposals/${id}/reject`).send({}).expect(200);
    const page = await browser.get(`${BASE}/ui/proposals/${id}`).set('Accept', 'text/html').expect(200);
    expect(page.text).toContain(`action="/admin/knowledge-graph/ui/proposals/${id}/reopen"`);
    expect(page.text).toContain('Take the rejection back');

    const body = new URLSearchParams({ _csrf: csrfToken, return: BASE });
    const res = await browser.post(`${BASE}/ui/proposals/${id}/reopen`).type('form').set('Accept', 'text/html').send(body.toString()).expect(303);
    expect(res.headers.location).toMatch(/^\/admin\/knowledge-graph\?done=\d+/);
    expect((await proposal(id)).status).toBe('pending');
    const again = await browser.post(`${BASE}/ui/proposals/${id}/reopen`).type('form').set('Accept', 'text/html').send(body.toString()).expect(409);
    expect(again.text).toContain('not rejected');
  });
});
