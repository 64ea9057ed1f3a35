// @module-tag slow (runs bin/kurate processes): `npm run test:fast` leaves it out; docs/testing.md
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, filesUnder, kurate, treeOf, type CliTarget } from '../support/cli.js';
import { ATTACHMENT_FIXTURES } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const MAX_BYTES = 16 * 1024;

/** The bytes of a vault's attachments (what import uploads): every file but Markdown and dot folders. */
function treeBytes(dir: string): number {
  return filesUnder(dir)
    .filter((file) => !/\.md$/.test(file) && !path.relative(dir, file).startsWith('.'))
    .reduce((sum, file) => sum + readFileSync(file).length, 0);
}

describe('kurate import and export with attachments', () => {
  let first: TestApp;
  let second: TestApp | undefined;
  let server: CliTarget;
  const scratch = mkdtempSync(path.join(tmpdir(), 'kurate-cli-files-'));
  const vault = path.join(scratch, 'vault');

  const put = (relative: string, content: string | Buffer) => {
    mkdirSync(path.dirname(path.join(vault, relative)), { recursive: true });
    writeFileSync(path.join(vault, relative), content);
  };
  const copy = (fixture: string, relative: string) => {
    mkdirSync(path.dirname(path.join(vault, relative)), { recursive: true });
    copyFileSync(path.join(ATTACHMENT_FIXTURES, fixture), path.join(vault, relative));
  };

  beforeAll(async () => {
    await ensureCliBuilt();
    first = await startTestApp({ listen: true, env: { KURATE_ATTACHMENTS_MAX_BYTES: String(MAX_BYTES) } });
    server = { baseUrl: first.baseUrl!, token: (await first.user('author', { name: 'cli' })).token };
    put('Home.md', '![[pixel.png]]\n\n![[doc.pdf#page=1]]\n\n![A dot](assets/img/pixel.png)\n\n![[script.svg]] and [[notes.txt]] and [[Sub]].\n');
    put('notes/Sub.md', '# Sub\n\n![[tone.wav]]\n\n![[Ünïcode name.png|120]]\n');
    copy('pixel.png', 'assets/img/pixel.png');
    copy('doc.pdf', 'doc.pdf');
    copy('script.svg', 'assets/script.svg');
    copy('tone.wav', 'notes/tone.wav');
    copy('notes.txt', 'notes.txt');
    put('My Files/Ünïcode name.png', Buffer.concat([readFileSync(path.join(ATTACHMENT_FIXTURES, 'pixel.png')), Buffer.from('tail')]));
    put('loose.bin', Buffer.from([0, 1, 2, 3, 255]));
    put('.obsidian/app.json', '{"tool": "state"}');
  }, 120_000);

  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('imports every non-Markdown file at its path; embeds render and no file is a wanted page', async () => {
    const result = await kurate(server, 'import', vault, '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.counts).toEqual({ created: 2, updated: 0, unchanged: 0, failed: 0 });
    expect(report.attachments).toMatchObject({ files: 7, counts: { created: 7, updated: 0, unchanged: 0, failed: 0 } });
    expect(report.attachments.results.map((r: { path: string; mediaType: string }) => [r.path, r.mediaType])).toEqual([
      ['My Files/Ünïcode name.png', 'image/png'],
      ['assets/img/pixel.png', 'image/png'],
      ['assets/script.svg', 'image/svg+xml'],
      ['doc.pdf', 'application/pdf'],
      ['loose.bin', 'application/octet-stream'],
      ['notes/tone.wav', 'audio/wav'],
      ['notes.txt', 'text/plain'],
    ]);
    expect(report.attachments.bytes).toBe(treeBytes(vault));
    expect(report.attachments.megabytesPerSecond).toBeGreaterThan(0);
    expect(report.wiki.wantedPages).toBe(0);
    const home = (await first.http.get('/api/pages/home?render=true').expect(200)).body.html as string;
    expect(home).toContain('src="/files/assets/img/pixel.png"');
    expect(home).toContain('src="/files/doc.pdf#page=1"');
    expect(home).toContain('src="/files/assets/script.svg"');
    const sub = (await first.http.get('/api/pages/sub?render=true').expect(200)).body.html as string;
    expect(sub).toContain('src="/files/My%20Files/%C3%9Cn%C3%AFcode%20name.png" alt="Ünïcode name.png" width="120"');

    // Again: nothing changes; a changed file is replaced in place.
    const again = JSON.parse((await kurate(server, 'import', vault, '--json')).stdout);
    expect(again.attachments.counts).toEqual({ created: 0, updated: 0, unchanged: 7, failed: 0 });
    copy('tone.wav', 'notes.txt');
    const changed = await kurate(server, 'import', vault);
    expect(changed.stdout).toMatch(/Uploaded 7 other files \([\d.]+ MB in [\d.]+ s, [\d.]+ MB\/s\): 0 created, 1 updated, 6 unchanged, 0 failed\./);
  }, 90_000);

  it('reports a file over the limit with the reason and a failing exit code; the rest arrive', async () => {
    put('big/too-big.bin', Buffer.alloc(MAX_BYTES + 1, 3));
    const result = await kurate(server, 'import', vault);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Files not uploaded:\n  big/too-big.bin: The file is larger than 16 KB, the largest file this wiki accepts (KURATE_ATTACHMENTS_MAX_BYTES).');
    expect(result.stderr).toContain('1 of 8 other files were not uploaded');
    rmSync(path.join(vault, 'big'), { recursive: true });
  }, 60_000);

  it('exports the files back byte for byte; importing the export into a fresh wiki and exporting again gives the same tree', async () => {
    const exportDir = path.join(scratch, 'export');
    const result = await kurate(server, 'export', exportDir);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(`Exported 2 pages and 7 files to ${exportDir}.`);
    const vaultTree = treeOf(vault);
    const exported = treeOf(exportDir);
    for (const [file, hash] of Object.entries(vaultTree)) {
      if (file.endsWith('.md') || file.startsWith('.obsidian/')) continue;
      expect([file, exported[file]]).toEqual([file, hash]);
    }
    // Refused without --force, since every file is there already.
    const refused = await kurate(server, 'export', exportDir);
    expect(refused.stderr).toMatch(/9 of the files already exist/);

    second = await startTestApp({ listen: true });
    const secondServer = { baseUrl: second.baseUrl!, token: (await second.user('author')).token };
    expect((await kurate(secondServer, 'import', exportDir)).code).toBe(0);
    const again = path.join(scratch, 'export-again');
    expect((await kurate(secondServer, 'export', again)).code).toBe(0);
    expect(treeOf(again)).toEqual(exported);
  }, 90_000);
});
