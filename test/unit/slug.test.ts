import { describe, expect, it } from 'vitest';
import { isSafeSlug, linkKey, linkTitle, slugify } from '../../src/pages/markdown/slug.js';

// U+20000 is a CJK letter outside the BMP, so it takes two UTF-16 code units.
const ASTRAL_LETTER = '\u{20000}';

describe('slugify', () => {
  it.each([
    ['Über Café!', 'über-café'],
    ['C++ & Rust', 'c-rust'],
    ['日本語 ページ', '日本語-ページ'],
    ['Graph View', 'graph-view'],
    ['graph-view', 'graph-view'],
  ])('turns %j into %j', (title, slug) => {
    expect(slugify(title)).toBe(slug);
  });

  it('applies NFKC normalisation', () => {
    expect(slugify('ﬁle')).toBe('file');
    expect(slugify('ＡＢＣ１２３')).toBe('abc123');
    expect(slugify('Cafe\u0301')).toBe('caf\u00e9');
    expect(slugify('x²')).toBe('x2');
  });

  it('lower-cases without locale rules', () => {
    expect(slugify('TITLE')).toBe('title');
    expect(slugify('ΣΟΦΙΑ')).toBe('σοφια');
  });

  it('keeps letters, numbers and combining marks of any script', () => {
    expect(slugify('हिन्दी भाषा')).toBe('हिन्दी-भाषा');
    expect(slugify('Привет мир')).toBe('привет-мир');
    expect(slugify('عدد ٣')).toBe('عدد-٣');
    expect(slugify('Version 2.0')).toBe('version-2-0');
  });

  it('collapses whitespace, underscores and punctuation into single dashes', () => {
    expect(slugify('snake_case__name')).toBe('snake-case-name');
    expect(slugify('  --Hello,   World!!--  ')).toBe('hello-world');
    expect(slugify('a — b')).toBe('a-b');
    expect(slugify('tab\tnew\nline')).toBe('tab-new-line');
    expect(slugify("Don't panic")).toBe('don-t-panic');
    expect(slugify('../etc/passwd')).toBe('etc-passwd');
  });

  it('treats symbols and emoji as separators', () => {
    expect(slugify('🚀 Launch')).toBe('launch');
    expect(slugify('a🚀b')).toBe('a-b');
  });

  it('returns an empty string when nothing is left', () => {
    expect(slugify('')).toBe('');
    expect(slugify('!!!')).toBe('');
    expect(slugify('🚀🚀')).toBe('');
    expect(slugify('   ')).toBe('');
  });

  it('caps the slug at 120 characters', () => {
    expect(slugify('a'.repeat(200))).toBe('a'.repeat(120));
    expect(slugify('a'.repeat(121))).toHaveLength(120);
  });

  it('drops a dash left dangling by the cap', () => {
    expect(slugify(`${'a'.repeat(119)} b`)).toBe('a'.repeat(119));
  });

  it('does not split a surrogate pair at the cap', () => {
    expect(slugify(`${'a'.repeat(118)}${ASTRAL_LETTER}`)).toBe(`${'a'.repeat(118)}${ASTRAL_LETTER}`);
    expect(slugify(`${'a'.repeat(119)}${ASTRAL_LETTER}`)).toBe('a'.repeat(119));
  });

  it('is idempotent', () => {
    for (const title of ['Über Café!', 'C++ & Rust', 'İstanbul', 'ﬁ ẞ Ǆ', `${'é'.repeat(130)}`, 'हिन्दी']) {
      expect(slugify(slugify(title))).toBe(slugify(title));
    }
  });
});

describe('linkTitle', () => {
  it('keeps the last path segment without a Markdown extension', () => {
    expect(linkTitle('user/features/Graph View.md')).toBe('Graph View');
    expect(linkTitle('Notes.markdown')).toBe('Notes');
    expect(linkTitle('Graph View')).toBe('Graph View');
    expect(linkTitle('archive.tar')).toBe('archive.tar');
  });
});

describe('linkKey', () => {
  it.each([
    ['user/features/graph-view.md', 'graph-view'],
    ['Graph View', 'graph-view'],
    ['GRAPH-VIEW.MD', 'graph-view'],
    ['notes.markdown', 'notes'],
    ['../folder/Some Page', 'some-page'],
    ['./Über Café.md', 'über-café'],
    ['v1.2 notes', 'v1-2-notes'],
    ['page.mdx', 'page-mdx'],
    ['folder/', ''],
  ])('keys %j as %j', (target, key) => {
    expect(linkKey(target)).toBe(key);
  });

  it('does not percent-decode (that is done for Markdown hrefs only)', () => {
    expect(linkKey('Other%20Page.md')).toBe('other-20page');
  });
});

describe('isSafeSlug', () => {
  it.each(['graph-view', '日本語-ページ', 'a', '2024'])('accepts %j', (slug) => {
    expect(isSafeSlug(slug)).toBe(true);
  });

  it.each(['', '../etc', '..', 'Graph', 'a--b', '-a', 'a-', 'a/b', '%2e%2e', 'a b', 'caf\u0065\u0301'])(
    'rejects %j',
    (slug) => {
      expect(isSafeSlug(slug)).toBe(false);
    },
  );
});
