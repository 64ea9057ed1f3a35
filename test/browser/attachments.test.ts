// @module-tag slow (drives Chromium): `npm run test:fast` leaves it out; docs/testing.md
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchBrowser, SCREENSHOTS, warnWithoutChromium, type TestBrowser } from '../support/browser.js';
import { ATTACHMENT_FIXTURES } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// Attachments in a real browser: drag and drop into the editor, and an SVG carrying a script that must never run
// from the wiki's origin (embedded as an image, framed, or opened directly). The browser sees the server's own
// headers here (no test CSP on top), since those headers are what is being tested.
warnWithoutChromium('the attachments browser test');

const PNG = readFileSync(path.join(ATTACHMENT_FIXTURES, 'pixel.png'));
const SVG = readFileSync(path.join(ATTACHMENT_FIXTURES, 'script.svg'));

describe.skipIf(!HAS_CHROMIUM)('attachments in a real browser', () => {
  let t: TestApp;
  let browser: TestBrowser;
  const dialogs: string[] = [];
  // An alert() from the SVG's script would be recorded here (and dismissed).
  const watchDialogs = (page: Page) => page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    dialog.dismiss().catch(() => undefined);
  });

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    browser = await launchBrowser({ viewport: { width: 1280, height: 900 } });
    const author = await t.as('author');
    await author.post('/api/attachments').attach('file', SVG, 'evil.svg').expect(201);
    await author.post('/api/pages').send({
      title: 'Hostile Picture',
      body: 'An SVG embedded: ![[evil.svg]]\n\nFramed by hand: <iframe src="/files/evil.svg"></iframe>\n\n[Open it](evil.svg)\n',
    }).expect(201);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const logIn = async (page: Page) => {
    const ada = await t.user('author', { name: 'Ada' });
    await page.goto(`${t.baseUrl}/login`);
    await page.getByLabel('Email').fill(ada.email);
    await page.getByLabel('Password').fill(ada.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  };

  it('never runs the script of an SVG: not as an image, not framed, not opened directly', async () => {
    const page = await browser.tab();
    watchDialogs(page);
    const downloadsOnOpen: string[] = [];
    const onDownload = (d: { suggestedFilename(): string }) => downloadsOnOpen.push(d.suggestedFilename());
    page.on('download', onDownload);
    await page.goto(`${t.baseUrl}/page/hostile-picture`);
    const image = page.locator('.page-body img.file-embed-image');
    // The image itself shows (an <img> never runs script).
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(40);
    // The author's own frame is dropped: framing a file of the wiki made every visitor download it, unasked.
    expect(await page.locator('.page-body iframe').count()).toBe(0);
    expect(downloadsOnOpen).toEqual([]);
    page.off('download', onDownload);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'attachments-hostile-svg.png'), fullPage: true });
    // Opened directly (the link, or typing the address), it is a download, never a document of the wiki's origin.
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Open it' }).click();
    expect((await download).suggestedFilename()).toBe('evil.svg');
    const direct = await browser.context.newPage();
    watchDialogs(direct);
    const directDownload = direct.waitForEvent('download');
    await direct.goto(`${t.baseUrl}/files/evil.svg`).catch((error: Error) => expect(error.message).toContain('Download is starting'));
    expect((await directDownload).suggestedFilename()).toBe('evil.svg');
    await direct.close();
    // Give a script every chance to have run, then check it never did.
    await page.reload();
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(40);
    expect(dialogs).toEqual([]);
    expect(await page.title()).not.toContain('svg script ran');
    expect(await page.evaluate(() => (window as unknown as { svgScriptRan?: boolean }).svgScriptRan)).toBeUndefined();
  });

  it('uploads a file dropped on the editor, inserts its embed at the cursor, and shows it once saved', async () => {
    const page = await browser.tab();
    await logIn(page);
    const created = await (await t.as('author')).post('/api/pages').send({ title: 'Drop Target', body: 'Before.\n\nAfter.' }).expect(201);
    expect(created.body.slug).toBe('drop-target');
    await page.goto(`${t.baseUrl}/page/drop-target/edit`);
    const text = page.getByLabel('Text (Markdown)');
    // Cursor after "Before.".
    await text.evaluate((area: HTMLTextAreaElement) => area.setSelectionRange(7, 7));
    const base64 = PNG.toString('base64');
    const transfer = await page.evaluateHandle((data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'dropped dot.png', { type: 'image/png' }));
      return dt;
    }, base64);
    await text.dispatchEvent('dragover', { dataTransfer: transfer });
    await text.dispatchEvent('drop', { dataTransfer: transfer });
    await expect.poll(() => text.inputValue(), { timeout: 8000 }).toBe('Before.\n![[dropped dot.png]]\n\n\nAfter.');
    expect(await page.locator('[data-attach-status]').textContent()).toContain('Uploaded dropped dot.png');
    // The live preview shows the image.
    const preview = page.locator('[data-preview-output] img.file-embed-image');
    await expect.poll(() => preview.count(), { timeout: 8000 }).toBe(1);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/page\/drop-target\?notice=saved$/);
    const shown = page.locator('.page-body img.file-embed-image');
    await expect.poll(() => shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(4);
    expect(await page.locator('.page-files').textContent()).toContain('dropped dot.png');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'attachments-dropped.png'), fullPage: true });
    expect(browser.pageErrors).toEqual([]);
  });
});
