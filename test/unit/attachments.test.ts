import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkedAttachmentPath, embedSnippetOf, fileUrlOf, nameKeyOf, numberedPath, pickFile } from '../../src/attachments/attachment-paths.js';
import { servingRuleOf, sniffMediaType } from '../../src/attachments/content-type.js';
import { ConfigError, loadConfig } from '../../src/config/kurate-config.js';
import { embedKindOf, extractFileTargets, fileTargetOf, formatBytes, type ResolvedFile } from '../../src/pages/markdown/file-embeds.js';
import { MarkdownRenderer } from '../../src/pages/markdown/markdown-renderer.js';
import { parseObjectListing } from '../../src/attachments/stores/s3.store.js';
import { ATTACHMENT_FIXTURES } from '../support/fixtures.js';

const fixture = (name: string) => readFileSync(path.join(ATTACHMENT_FIXTURES, name));

describe('attachment paths', () => {
  it('keeps a vault path as written and refuses what could escape, hide or be a page', () => {
    expect(checkedAttachmentPath('Assets/My Photo (1).PNG')).toBe('Assets/My Photo (1).PNG');
    expect(checkedAttachmentPath('Ünïcode/naïve.pdf')).toBe('Ünïcode/naïve.pdf'.normalize('NFC'));
    // A right-to-left mark only leans neutral characters: such names are kept; overrides (above) are refused.
    expect(checkedAttachmentPath('صور/شعار\u200F.png')).toBe('صور/شعار\u200F.png');
    for (const bad of ['', '/etc/passwd', '../x.png', 'a/../../x.png', 'a//b.png', './x.png', '.hidden/x.png', 'a/.x.png', 'x.md', 'notes/X.Markdown', 'a\\b.png', 'tab\there.png', ' lead.png', 'x'.repeat(1001), 'invoice\u202Egnp.exe', 'a/\u2066b\u2069.png']) {
      expect(() => checkedAttachmentPath(bad), JSON.stringify(bad)).toThrow('cannot be used');
    }
  });

  it('finds files by the shortest unique path: the whole path, then the shallowest, then by path; letter case aside', () => {
    const files = [{ path: 'deep/img/logo.png' }, { path: 'b/logo.png' }, { path: 'a/logo.png' }, { path: 'Other/Logo.PNG' }];
    expect(pickFile('logo.png', files)?.path).toBe('Other/Logo.PNG');
    expect(pickFile('img/logo.png', files)?.path).toBe('deep/img/logo.png');
    expect(pickFile('B/LOGO.png', files)?.path).toBe('b/logo.png');
    expect(pickFile('go.png', files)).toBeNull();
    expect(pickFile('logo.png', [...files, { path: 'logo.png' }])?.path).toBe('logo.png');
    expect(pickFile('logo.png', [{ path: 'b/logo.png' }, { path: 'a/logo.png' }])?.path).toBe('a/logo.png');
  });

  it('names copies as Obsidian does, URLs and embeds that survive any name', () => {
    expect(numberedPath('img/photo.png', 1)).toBe('img/photo 1.png');
    expect(numberedPath('README', 2)).toBe('README 2');
    expect(numberedPath('.x', 1)).toBe('.x 1');
    expect(fileUrlOf('My Files/a#b?.png')).toBe('/files/My%20Files/a%23b%3F.png');
    expect(embedSnippetOf('img/photo 1.png')).toBe('![[img/photo 1.png]]');
    expect(embedSnippetOf('odd [x] #1.png')).toBe('![odd x #1.png](odd%20%5Bx%5D%20%231.png)');
    expect(nameKeyOf('A/B/Photo.PNG')).toBe('photo.png');
  });
});

describe('content types from the bytes', () => {
  it('tells formats by their signature and text by its content, whatever the name says', async () => {
    expect(await sniffMediaType(fixture('pixel.png'))).toBe('image/png');
    expect(await sniffMediaType(fixture('doc.pdf'))).toBe('application/pdf');
    expect(await sniffMediaType(fixture('tone.wav'))).toBe('audio/wav');
    expect(await sniffMediaType(fixture('script.svg'))).toBe('image/svg+xml');
    expect(await sniffMediaType(fixture('page.html'))).toBe('text/html');
    expect(await sniffMediaType(fixture('notes.txt'))).toBe('text/plain');
    expect(await sniffMediaType(Buffer.from('\uFEFF<!-- a comment -->\n<svg viewBox="0 0 1 1"></svg>'))).toBe('image/svg+xml');
    expect(await sniffMediaType(Buffer.from('<?xml version="1.0"?><note>hi</note>'))).toBe('application/xml');
    expect(await sniffMediaType(Buffer.from('  <script>alert(1)</script>'))).toBe('text/html');
    expect(await sniffMediaType(Buffer.from('a < b and <b>bold</b> later'))).toBe('text/plain');
    expect(await sniffMediaType(Buffer.from([0xc3, 0x28, 0x41]))).toBe('application/octet-stream');
    expect(await sniffMediaType(Buffer.alloc(0))).toBe('text/plain');
  });

  it('serves only inert types inline; SVG, HTML, XML and the unknown as downloads, all under a CSP that runs nothing', () => {
    for (const type of ['image/png', 'image/jpeg', 'application/pdf', 'audio/wav', 'video/mp4', 'text/plain']) expect(servingRuleOf(type).inline, type).toBe(true);
    for (const type of ['image/svg+xml', 'text/html', 'application/xml', 'application/octet-stream', 'application/zip', 'application/javascript']) {
      expect(servingRuleOf(type).inline, type).toBe(false);
    }
    expect(servingRuleOf('image/svg+xml').contentSecurityPolicy).toMatch(/^default-src 'none';.*sandbox/);
    expect(servingRuleOf('application/pdf').contentSecurityPolicy).toMatch(/^default-src 'none';/);
    expect(servingRuleOf('text/plain').contentType).toBe('text/plain; charset=utf-8');
  });
});

describe('file references in Markdown', () => {
  it('normalises what may be a file, and leaves pages, URLs and anchors alone', () => {
    expect(fileTargetOf('./img/a%20b.png#x', { percentEncoded: true })).toBe('img/a b.png');
    expect(fileTargetOf('../../img/a.png', { percentEncoded: true })).toBe('img/a.png');
    expect(fileTargetOf('a%20b.png', { percentEncoded: false })).toBe('a%20b.png');
    for (const notFile of ['note.md', 'Note', 'https://x.org/a.png', '/static/a.png', '#top', 'mailto:a@b.c', 'a/../b.png', '']) {
      expect(fileTargetOf(notFile, { percentEncoded: true }), notFile).toBeNull();
    }
    expect(extractFileTargets('![[a.png|300]] [[Page]] [x](doc.pdf) ![y](img/b.png) `![[code.png]]` [[a.png]] ![[Note.md]]')).toEqual(['a.png', 'doc.pdf', 'img/b.png']);
    expect(embedKindOf('image/svg+xml')).toBe('image');
    expect(embedKindOf('application/zip')).toBe('card');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(25 * 1024 * 1024)).toBe('25 MB');
  });

  it('renders hostile names and raw HTML safely: no attribute breaks out, only the wiki’s files may be framed', () => {
    const renderer = new MarkdownRenderer();
    const file = (p: string, mediaType: string): ResolvedFile => ({ path: p, url: fileUrlOf(p), mediaType, sizeBytes: 10 });
    const files: Record<string, ResolvedFile> = {
      'x" onerror="alert(1).png': file('x" onerror="alert(1).png', 'image/png'),
      'a.pdf': file('a.pdf', 'application/pdf'),
    };
    const html = renderer.render(
      '![[x" onerror="alert(1).png|"><script>alert(2)</script>]]\n\n![[a.pdf]]\n\n<iframe src="https://evil.example/"></iframe>\n\n<iframe src="/admin/users"></iframe>\n\n<iframe src="/files/a.pdf" onload="alert(3)"></iframe>\n\n<iframe src="/files/../admin/users"></iframe>\n\n<iframe class="file-embed file-embed-pdf" src="/files/evil.html"></iframe>\n\n<video src="javascript:alert(4)"></video>',
      () => null,
      { resolveFile: (target) => files[target] ?? null },
    ).html;
    expect(html).not.toMatch(/<script|onerror=|onload=|javascript:/i);
    expect(html).not.toContain('evil.example');
    expect(html).not.toContain('/admin/users');
    // Only the renderer's own frame, for the embedded PDF: no author writes a frame, not even one at a file of the
    // wiki, nor one dressed as the renderer's.
    expect(html.match(/<iframe[^>]*>/g)).toEqual(['<iframe class="file-embed file-embed-pdf" src="/files/a.pdf" title="a.pdf">']);
    expect(html).toContain('src="/files/x%22%20onerror%3D%22alert(1).png"');
  });
});

describe('attachments configuration', () => {
  it('defaults to a folder under the data directory, or the database when the data directory is memory://', () => {
    const onDisk = loadConfig({ KURATE_DATA_DIR: '/srv/kurate' }, '/');
    expect(onDisk.attachments).toMatchObject({ store: 'local', directory: '/srv/kurate/attachments', maxBytes: 25 * 1024 * 1024 });
    expect(loadConfig({ KURATE_DATA_DIR: 'memory://' }).attachments.store).toBe('database');
    expect(loadConfig({ KURATE_ATTACHMENTS_STORE: 'database', KURATE_ATTACHMENTS_MAX_BYTES: '2048' }).attachments).toMatchObject({ store: 'database', maxBytes: 2048 });
  });

  it('names the variable to fix', () => {
    expect(() => loadConfig({ KURATE_ATTACHMENTS_STORE: 'ftp' })).toThrow(/KURATE_ATTACHMENTS_STORE must be one of local, database, s3/);
    expect(() => loadConfig({ KURATE_ATTACHMENTS_MAX_BYTES: '12' })).toThrow(/KURATE_ATTACHMENTS_MAX_BYTES/);
    expect(() => loadConfig({ KURATE_ATTACHMENTS_STORE: 's3', KURATE_S3_BUCKET: 'b-1' })).toThrow(/needs KURATE_S3_ENDPOINT, KURATE_S3_ACCESS_KEY_ID, KURATE_S3_SECRET_ACCESS_KEY/);
    expect(() => loadConfig({ KURATE_DATA_DIR: 'memory://', KURATE_ATTACHMENTS_STORE: 'local' })).toThrow(ConfigError);
    expect(() => loadConfig({ KURATE_S3_BUCKET: 'Not_A_Bucket' })).toThrow(/KURATE_S3_BUCKET must be an S3 bucket name/);
    // The secret key is never echoed back, even beside another variable's mistake.
    const withSecret = () => loadConfig({ KURATE_S3_ENDPOINT: 'not a url', KURATE_S3_SECRET_ACCESS_KEY: 'very-secret-key' });
    expect(withSecret).toThrow(/KURATE_S3_ENDPOINT must be an http:\/\/ or https:\/\/ URL/);
    expect(() => withSecret()).not.toThrow(/very-secret-key/);
  });
});

describe('attachments are never entities', () => {
  it('keeps links that reached a stored file out of the extractor’s wanted targets, whatever their name', async () => {
    const { linkTargetsOf } = await import('../../src/kg/page-extraction.service.js');
    const text = 'See [[LICENSE]], ![[diagram.png]] and [[Other Page]].';
    expect(linkTargetsOf(text, new Map()).wantedTargets).toEqual(['LICENSE', 'Other Page']);
    expect(linkTargetsOf(text, new Map(), new Set(['license'])).wantedTargets).toEqual(['Other Page']);
  });
});

describe('S3 bucket listings (ListObjectsV2)', () => {
  const page = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>${body}</ListBucketResult>`;

  it('reads each entry’s key (references resolved), size and last write, and the next page’s token', () => {
    const listing = parseObjectListing(page(
      '<IsTruncated>true</IsTruncated><NextContinuationToken>1a/b+c&amp;d==</NextContinuationToken><ContinuationToken>old</ContinuationToken>'
      + '<Contents><Key>wiki/a&amp;b &lt;c&gt; &#233;&#x263A;</Key><LastModified>2026-12-01T10:00:00.000Z</LastModified><ETag>&quot;x&quot;</ETag><Size>42</Size></Contents>'
      + '<Contents><Key>wiki/0</Key><LastModified>2026-12-02T10:00:00Z</LastModified><Size>0</Size></Contents>',
    ));
    expect(listing).toEqual({
      objects: [
        { key: 'wiki/a&b <c> é☺', size: 42, modifiedMs: Date.parse('2026-12-01T10:00:00Z') },
        { key: 'wiki/0', size: 0, modifiedMs: Date.parse('2026-12-02T10:00:00Z') },
      ],
      nextToken: '1a/b+c&d==',
    });
    expect(parseObjectListing(page('<IsTruncated>false</IsTruncated>'))).toEqual({ objects: [], nextToken: null });
  });

  it('refuses what is not a listing, an entry without its fields, and a truncated page without a token', () => {
    expect(() => parseObjectListing('<Error><Code>AccessDenied</Code></Error>')).toThrow('other than a ListBucketResult');
    expect(() => parseObjectListing(page('<Contents><Key>k</Key><Size>1</Size></Contents>'))).toThrow('without a key, size or last write');
    expect(() => parseObjectListing(page('<IsTruncated>true</IsTruncated>'))).toThrow('without a continuation token');
  });
});
