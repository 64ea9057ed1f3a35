// @module-tag slow (drives Chromium): `npm run test:fast` leaves it out; docs/testing.md
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

const STRICT_CSP = "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data: https:;object-src 'none';base-uri 'self';form-action 'self';frame-ancestors 'none'";
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

describe('security headers and request size', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ listen: true, env: { KURATE_MAX_BODY_BYTES: '4096' } });
  });
  afterAll(() => t.close());

  it('sends helmet headers and a strict Content-Security-Policy on pages, API answers and errors', async () => {
    for (const res of [await t.http.get('/login'), await t.http.get('/api/pages'), await t.http.get('/no-such-route'), await t.http.get('/static/css/kurate.css')]) {
      expect(res.headers['content-security-policy']).toBe(STRICT_CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('relaxes only style-src, and only for the swagger-ui pages under /api/docs', async () => {
    const docs = await t.http.get('/api/docs/').expect(200);
    expect(docs.headers['content-security-policy']).toBe(STRICT_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"));
    const json = await t.http.get('/api/docs/openapi.json').expect(200);
    expect(json.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(json.body.paths['/api/tokens']).toBeDefined();
    expect(json.body.paths['/api/admin/users']).toBeDefined();
    expect(json.body.paths['/api/admin/audit']).toBeDefined();
  });

  it('answers an oversized body with 413 and a clear message, before authentication', async () => {
    const res = await t.http.post('/api/pages').send({ title: 'Big', body: 'x'.repeat(5000) }).expect(413);
    expect(res.body).toMatchObject({ statusCode: 413, message: expect.stringMatching(/too large/) });
    const form = await t.http.post('/login').type('form').send({ email: 'x'.repeat(5000) }).expect(413);
    expect(form.headers['content-security-policy']).toBe(STRICT_CSP);
  });

  describe.skipIf(!existsSync(CHROMIUM))('in a real browser', () => {
    let context: BrowserContext;
    let userDataDir: string;
    const violations: string[] = [];

    beforeAll(async () => {
      userDataDir = mkdtempSync(path.join(tmpdir(), 'kurate-auth-chromium-'));
      context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
      context.on('page', (page) => page.on('console', (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
      }));
    });
    afterAll(async () => {
      await context?.close();
      if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    });

    it('renders the API docs (swagger-ui) under its policy without violations', async () => {
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${t.baseUrl}/api/docs/`);
      await page.locator('.swagger-ui .info .title').filter({ hasText: 'Kurate' }).waitFor();
      expect(await page.locator('.opblock-tag-section').count()).toBeGreaterThan(3);
      expect(violations).toEqual([]);
      await page.close();
    });

    it('logs in through the form under the strict policy without violations', async () => {
      const user = await t.user('author', { name: 'Browser Author' });
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${t.baseUrl}/login?next=/account/tokens`);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/\/account\/tokens$/);
      await page.getByLabel('Name').fill('made in a browser');
      await page.getByRole('button', { name: 'Create token' }).click();
      expect(await page.locator('code.token-value').textContent()).toMatch(/^kur_/);
      const cookies = await context.cookies(t.baseUrl!);
      expect(cookies.find((c) => c.name === 'kurate.sid')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      expect(violations).toEqual([]);
      await page.close();
    });
  });
});
