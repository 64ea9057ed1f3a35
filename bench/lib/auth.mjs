// Logging the bench in: the server is started with KURATE_ADMIN_EMAIL/KURATE_ADMIN_PASSWORD (the first admin), the
// bench logs in through the login form (session cookie + CSRF token, as a browser does) and creates an API token for
// the import CLI and the saves. A build without accounts (no /login) needs none of it.
import { randomBytes } from 'node:crypto';

export const BENCH_ADMIN_EMAIL = 'bench-admin@kurate.example';

export function benchAdminPassword() {
  return randomBytes(18).toString('base64url');
}

function sessionCookie(response) {
  const cookies = typeof response.headers.getSetCookie === 'function' ? response.headers.getSetCookie() : [];
  const sid = cookies.map((c) => c.split(';')[0]).find((c) => c.startsWith('kurate.sid='));
  return sid ?? null;
}

function csrfIn(html) {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? /<meta name="csrf-token" content="([^"]+)"/.exec(html)?.[1] ?? null;
}

/**
 * @returns {Promise<{ token: string|null, cookie: string|null, csrf: string|null, auth: boolean }>} an API token (write
 * scope), a logged-in session cookie and its CSRF token, or nulls when the server has no accounts.
 */
export async function logIn(base, email, password) {
  const timeout = () => AbortSignal.timeout(30_000);
  const form = await fetch(`${base}/login`, { redirect: 'manual', signal: timeout() });
  const formHtml = await form.text();
  if (form.status === 404) return { token: null, cookie: null, csrf: null, auth: false };
  if (form.status !== 200) throw new Error(`GET /login answered ${form.status}`);
  let cookie = sessionCookie(form);
  const csrf = csrfIn(formHtml);
  if (!cookie || !csrf) throw new Error('GET /login gave no session cookie or no CSRF token');

  const login = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ email, password, _csrf: csrf, next: '/' }),
    signal: timeout(),
  });
  await login.arrayBuffer();
  if (login.status !== 303 && login.status !== 302) throw new Error(`POST /login answered ${login.status} (expected a redirect)`);
  cookie = sessionCookie(login) ?? cookie;

  // The CSRF token is renewed at login: read it from any page the session now sees.
  const home = await fetch(`${base}/account/tokens`, { headers: { cookie }, signal: timeout() });
  const fresh = csrfIn(await home.text());
  if (!fresh) throw new Error(`no CSRF token on /account/tokens after login (status ${home.status})`);

  const created = await fetch(`${base}/api/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': fresh },
    body: JSON.stringify({ name: `bench ${new Date().toISOString()}`, scopes: ['write'] }),
    signal: timeout(),
  });
  const body = await created.json().catch(() => ({}));
  if (created.status !== 201 || typeof body.token !== 'string') throw new Error(`POST /api/tokens answered ${created.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return { token: body.token, cookie, csrf: fresh, auth: true };
}
