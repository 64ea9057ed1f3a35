import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/auth/api-tokens.service.js';
import { holdLock, waitFor } from '../support/lock-gate.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

describe('personal API tokens', () => {
  let t: TestApp;
  let author: TestUser;
  let reader: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    [author, reader, admin] = await Promise.all([t.user('author', { name: 'Tess Token' }), t.user('reader'), t.user('admin')]);
  });
  afterAll(() => t.close());

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const createPage = (token: string, title: string) => t.http.post('/api/pages').set(bearer(token)).send({ title, body: 'text' });

  it('creates a token shown once (kur_…), stored only as its SHA-256, and lists it without the secret', async () => {
    const created = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'laptop', scopes: ['write'] }).expect(201);
    expect(created.body).toMatchObject({ name: 'laptop', scopes: ['write'], status: 'active', expiresAt: null, userEmail: author.email });
    expect(created.body.token).toMatch(/^kur_[A-Za-z0-9_-]{43}$/);
    expect(created.body.prefix).toBe(created.body.token.slice(0, 12));
    const rows: { token_hash: string }[] = await t.dataSource.query(`SELECT token_hash FROM api_tokens WHERE id = $1`, [created.body.id]);
    expect(rows[0].token_hash).toBe(hashToken(created.body.token));
    const dump = JSON.stringify(await t.dataSource.query(`SELECT * FROM api_tokens`));
    expect(dump).not.toContain(created.body.token);

    const list = await t.http.get('/api/tokens').set(bearer(created.body.token)).expect(200);
    expect(list.body.items.map((i: { name: string }) => i.name).sort()).toEqual(['laptop', 'test']);
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);
    // It works, and revisions record the real author.
    const page = await createPage(created.body.token, 'Written With A Token').expect(201);
    expect(page.body.createdBy).toBe('Tess Token');
  });

  it("keeps a token's last use to the minute: written at its first use, not again within the minute, again after", async () => {
    const { body } = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'last-used' }).expect(201);
    expect(body.lastUsedAt).toBeNull();
    const lastUsed = async (): Promise<Date> => (await t.dataSource.query(`SELECT last_used_at AS at FROM api_tokens WHERE id = $1`, [body.id]))[0].at;
    await t.http.get('/api/pages').set(bearer(body.token)).expect(200);
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    // Within the minute: no new write (the time stays that of the first use).
    await t.http.get('/api/pages').set(bearer(body.token)).expect(200);
    expect(await lastUsed()).toEqual(first);
    // A minute later (the stored time moved back): the next use writes it again, and the listing shows it.
    await t.dataSource.query(`UPDATE api_tokens SET last_used_at = last_used_at - interval '61 seconds' WHERE id = $1`, [body.id]);
    await t.http.get('/api/pages').set(bearer(body.token)).expect(200);
    const again = await lastUsed();
    expect(again.getTime()).toBeGreaterThan(first.getTime() - 61_000);
    const list = await t.http.get('/api/tokens').set(bearer(author.token)).expect(200);
    expect(new Date(list.body.items.find((i: { id: string }) => i.id === body.id).lastUsedAt)).toEqual(again);
  });

  it('revokes a token: the next request with it is a 401, and the revocation is audited', async () => {
    const { body } = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'short-lived' }).expect(201);
    await t.http.get('/api/tokens').set(bearer(body.token)).expect(200);
    await t.http.delete(`/api/tokens/${body.id}`).set(bearer(author.token)).expect(204);
    const refused = await t.http.get('/api/pages').set(bearer(body.token)).expect(401);
    expect(refused.body).toMatchObject({ code: 'unauthenticated', message: expect.stringMatching(/invalid, expired or revoked/) });
    const list = await t.http.get('/api/tokens').set(bearer(author.token)).expect(200);
    expect(list.body.items.find((i: { id: string }) => i.id === body.id).status).toBe('revoked');
    const audit = await t.dataSource.query(`SELECT actor_name, action, details FROM audit_log WHERE action = 'token.revoke' AND details->>'tokenId' = $1`, [body.id]);
    expect(audit).toEqual([{ actor_name: 'Tess Token', action: 'token.revoke', details: { tokenId: body.id, owner: author.email } }]);
  });

  it('one token revoked twice at once: both 204, one revocation time, one audit entry', async () => {
    const { body } = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'revoked-twice' }).expect(201);
    // Both requests read the token (not revoked yet), then queue on its row.
    const gate = await holdLock(t.dataSource, 'SELECT 1 FROM api_tokens WHERE id = $1 FOR UPDATE', [body.id]);
    const revokes = [0, 1].map(() => t.http.delete(`/api/tokens/${body.id}`).set(bearer(author.token)).then((r) => r));
    await waitFor('both revocations to queue', async () => (await gate.waiting()) >= 2);
    await gate.release();
    expect((await Promise.all(revokes)).map((r) => r.status)).toEqual([204, 204]);
    const audit = await t.dataSource.query(`SELECT 1 FROM audit_log WHERE action = 'token.revoke' AND details->>'tokenId' = $1`, [body.id]);
    expect(audit).toHaveLength(1);
  });

  it('refuses an expired token with 401, and accepts one that has not expired yet', async () => {
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const { body } = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'expiring', expiresAt: later }).expect(201);
    expect(new Date(body.expiresAt).toISOString()).toBe(later);
    await t.http.get('/api/tokens').set(bearer(body.token)).expect(200);
    await t.dataSource.query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [body.id]);
    await t.http.get('/api/pages').set(bearer(body.token)).expect(401);
    const past = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'x', expiresAt: '2001-01-01' }).expect(400);
    expect(past.body.message).toBe('expiresAt must be in the future.');
    await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'x', expiresAt: 'tomorrow' }).expect(400);
    // ISO 8601 forms a Date cannot read, and days that do not exist, are named as such, not said to be in the past.
    for (const expiresAt of ['2027-W01-1', '20270101T000000Z', '2027-02-30']) {
      const unread = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'x', expiresAt }).expect(400);
      expect(unread.body.message).toContain('expiresAt must be a date such as 2027-01-31 or a time such as 2027-01-31T18:00:00Z');
    }
  });

  it('never lets an expiring token create a token that outlives it', async () => {
    const expiry = new Date(Date.now() + 3_600_000).toISOString();
    const { body: parent } = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'an hour', scopes: ['write'], expiresAt: expiry }).expect(201);
    for (const expiresAt of [undefined, new Date(Date.now() + 7_200_000).toISOString()]) {
      const refused = await t.http.post('/api/tokens').set(bearer(parent.token)).send({ name: 'longer', expiresAt }).expect(400);
      expect(refused.body.message).toBe(`This token expires at ${expiry}: a token it creates cannot outlive it. Set expiresAt on or before that time, or create the token after logging in.`);
    }
    const child = await t.http.post('/api/tokens').set(bearer(parent.token)).send({ name: 'shorter', expiresAt: expiry }).expect(201);
    expect(new Date(child.body.expiresAt).toISOString()).toBe(expiry);
    // A token that never expires may create one that never expires.
    await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'forever too' }).expect(201);
  });

  it('refuses unknown, malformed and non-Bearer credentials with 401, on any route', async () => {
    await t.http.get('/api/pages').set(bearer('kur_nope')).expect(401);
    await t.http.get('/api/pages').set(bearer('not-even-a-kurate-token')).expect(401);
    await t.http.get('/health').set('Authorization', 'Basic YWRhOnB3').expect(401);
    await t.http.get('/api/pages').set('Authorization', '').expect(401);
  });

  it('never grants more than the owner has, and never more than its scopes', async () => {
    // A read-scoped token of an author cannot write.
    const { body: readOnly } = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'ro', scopes: ['read'] }).expect(201);
    const denied = await createPage(readOnly.token, 'Nope').expect(403);
    expect(denied.body.code).toBe('forbidden');
    // …nor create a token above its own scope.
    await t.http.post('/api/tokens').set(bearer(readOnly.token)).send({ name: 'up', scopes: ['write'] }).expect(403);
    // A reader cannot create a write token; an author cannot create an admin token.
    const readerUp = await t.http.post('/api/tokens').set(bearer(reader.token)).send({ name: 'w', scopes: ['write'] }).expect(403);
    expect(readerUp.body.message).toBe('This token acts as a reader: it cannot create a token with the write scope.');
    await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'a', scopes: ['admin'] }).expect(403);
    await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'a', scopes: ['root'] }).expect(400);
    // An admin's write-scoped token is not an admin token.
    const { body: adminWrite } = await t.http.post('/api/tokens').set(bearer(admin.token)).send({ name: 'w', scopes: ['write'] }).expect(201);
    await t.http.get('/api/admin/users').set(bearer(adminWrite.token)).expect(403);
    await t.http.get('/api/admin/users').set(bearer(admin.token)).expect(200);
    // An admin token of someone demoted to reader only reads.
    await t.http.put(`/api/admin/users/${author.id}/role`).set(bearer(admin.token)).send({ role: 'reader' }).expect(200);
    await createPage(author.token, 'Demoted').expect(403);
    await t.http.put(`/api/admin/users/${author.id}/role`).set(bearer(admin.token)).send({ role: 'author' }).expect(200);
    await createPage(author.token, 'Promoted Again').expect(201);
  });

  it("lets a token made to do less than its owner revoke only itself, and create none", async () => {
    // An admin's read token, leaked: it may read, and list its owner's tokens, but not cut off the owner's automation
    // nor mint a token that survives its own revocation.
    const { body: full } = await t.http.post('/api/tokens').set(bearer(admin.token)).send({ name: 'automation', scopes: ['admin'] }).expect(201);
    const { body: readOnly } = await t.http.post('/api/tokens').set(bearer(admin.token)).send({ name: 'dashboard', scopes: ['read'] }).expect(201);
    await t.http.get('/api/tokens').set(bearer(readOnly.token)).expect(200);
    const revokeOther = await t.http.delete(`/api/tokens/${full.id}`).set(bearer(readOnly.token)).expect(403);
    expect(revokeOther.body.message).toBe("This token acts as a reader, less than its owner's role: it can revoke only itself. Log in, or use a token with your full role.");
    const mint = await t.http.post('/api/tokens').set(bearer(readOnly.token)).send({ name: 'minted', scopes: ['read'] }).expect(403);
    expect(mint.body.message).toBe("This token acts as a reader, less than its owner's role: it cannot create tokens. Log in, or use a token with your full role.");
    await t.http.get('/api/admin/users').set(bearer(full.token)).expect(200);
    // `kurate logout` with such a token revokes it.
    await t.http.delete(`/api/tokens/${readOnly.id}`).set(bearer(readOnly.token)).expect(204);
    await t.http.get('/api/tokens').set(bearer(readOnly.token)).expect(401);
    // A token of its owner's full role manages the owner's tokens, as the CLI does (`kurate token create`).
    const { body: child } = await t.http.post('/api/tokens').set(bearer(full.token)).send({ name: 'child', scopes: ['read'] }).expect(201);
    await t.http.delete(`/api/tokens/${child.id}`).set(bearer(full.token)).expect(204);
    // A reader's read token is a reader's full role.
    const { body: readersOwn } = await t.http.post('/api/tokens').set(bearer(reader.token)).send({ name: 'second' }).expect(201);
    await t.http.delete(`/api/tokens/${readersOwn.id}`).set(bearer(reader.token)).expect(204);
  });

  it("refuses a disabled user's tokens with 401, and accepts them again once enabled", async () => {
    const victim = await t.user('author');
    await t.http.post(`/api/admin/users/${victim.id}/disable`).set(bearer(admin.token)).expect(200);
    await t.http.get('/api/pages').set(bearer(victim.token)).expect(401);
    await t.http.post(`/api/admin/users/${victim.id}/enable`).set(bearer(admin.token)).expect(200);
    await t.http.get('/api/pages').set(bearer(victim.token)).expect(200);
  });

  it("lists and revokes only your own tokens; an admin may list and revoke anyone's", async () => {
    const { body: theirs } = await t.http.post('/api/tokens').set(bearer(author.token)).send({ name: 'theirs' }).expect(201);
    const readerList = await t.http.get('/api/tokens').set(bearer(reader.token)).expect(200);
    expect(readerList.body.items.every((i: { userId: string }) => i.userId === reader.id)).toBe(true);
    await t.http.get('/api/tokens?all=true').set(bearer(reader.token)).expect(403);
    await t.http.get(`/api/tokens?userId=${author.id}`).set(bearer(reader.token)).expect(403);
    await t.http.delete(`/api/tokens/${theirs.id}`).set(bearer(reader.token)).expect(404);
    await t.http.delete('/api/tokens/not-a-uuid').set(bearer(reader.token)).expect(400);

    const all = await t.http.get('/api/tokens?all=true').set(bearer(admin.token)).expect(200);
    const owners = new Set(all.body.items.map((i: { userId: string }) => i.userId));
    for (const id of [author.id, reader.id, admin.id]) expect(owners.has(id)).toBe(true);
    const authors = await t.http.get(`/api/tokens?userId=${author.id}`).set(bearer(admin.token)).expect(200);
    expect(authors.body.items.every((i: { userId: string }) => i.userId === author.id)).toBe(true);
    await t.http.delete(`/api/tokens/${theirs.id}`).set(bearer(admin.token)).expect(204);
    await t.http.get('/api/tokens').set(bearer(theirs.token)).expect(401);
    const audit = await t.dataSource.query(`SELECT actor_user_id FROM audit_log WHERE action = 'token.revoke' AND details->>'tokenId' = $1`, [theirs.id]);
    expect(audit).toEqual([{ actor_user_id: admin.id }]);
  });

  it('needs no CSRF token with a Bearer token, and a login for token routes', async () => {
    await t.http.post('/api/tokens').set(bearer(reader.token)).send({ name: 'no csrf needed' }).expect(201);
    await t.http.get('/api/tokens').expect(401);
    await t.http.post('/api/tokens').send({ name: 'anonymous' }).expect(401);
  });

  it('lets a logged-in user manage tokens in the browser: create (shown once), revoke', async () => {
    const { agent, csrfToken } = await t.login(reader);
    const created = await agent.post('/account/tokens').type('form').send({ _csrf: csrfToken, name: 'from the browser', scope: 'read', expiresOn: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10) }).expect(201);
    const token = /<code class="token-value">(kur_[^<]+)<\/code>/.exec(created.text)?.[1];
    expect(token).toBeDefined();
    await t.http.get('/api/tokens').set(bearer(token!)).expect(200);
    const again = await agent.get('/account/tokens').expect(200);
    expect(again.text).not.toContain(token);
    expect(again.text).toContain('from the browser');
    const refused = await agent.post('/account/tokens').type('form').send({ _csrf: csrfToken, name: 'too much', scope: 'write' }).expect(403);
    expect(refused.text).toContain('A reader cannot create a token with the write scope.');
    const id = ((await t.dataSource.query(`SELECT id FROM api_tokens WHERE name = 'from the browser'`)) as { id: string }[])[0].id;
    await agent.post(`/account/tokens/${id}/revoke`).type('form').send({ _csrf: csrfToken }).expect(303).expect('location', '/account/tokens?notice=revoked');
    await t.http.get('/api/tokens').set(bearer(token!)).expect(401);
  });
});
