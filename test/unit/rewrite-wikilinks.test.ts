import { describe, expect, it } from 'vitest';
import { codeRanges, rewriteWikilinks } from '../../src/pages/markdown/link-rewrite.js';

describe('rewriteWikilinks', () => {
  const keys = new Set(['old-name', 'alias-one']);

  it('rewrites every form of link to the renamed page, keeping headings and labels', () => {
    expect(rewriteWikilinks('[[Old Name]] [[old name|label]] [[Old Name#Part]] ![[Old Name]] [[Alias One]]', keys, 'New Name')).toBe(
      '[[New Name]] [[New Name|label]] [[New Name#Part]] ![[New Name]] [[New Name]]',
    );
  });

  it('leaves links to other pages alone', () => {
    expect(rewriteWikilinks('[[Other]] and [[Old Names]]', keys, 'New Name')).toBe('[[Other]] and [[Old Names]]');
  });

  it('leaves code alone: fenced and indented blocks, code spans of any length; links around them are rewritten', () => {
    const body = [
      'See [[Old Name]] and `[[Old Name]]` and ``a ` [[Old Name]]`` then [[Old Name|x]].',
      '',
      '```markdown',
      'Write [[Old Name]] to link.',
      '```',
      '',
      '    [[Old Name]] indented code',
      '',
      '- item with [[Alias One]]',
      '> quote with `code [[Old Name]]` and [[Old Name#Part]]',
      'An unclosed ` backtick and [[Old Name]].',
      '',
      'Escaped \\`[[Old Name]]\\` is text.',
    ].join('\n');
    expect(rewriteWikilinks(body, keys, 'New Name')).toBe([
      'See [[New Name]] and `[[Old Name]]` and ``a ` [[Old Name]]`` then [[New Name|x]].',
      '',
      '```markdown',
      'Write [[Old Name]] to link.',
      '```',
      '',
      '    [[Old Name]] indented code',
      '',
      '- item with [[New Name]]',
      '> quote with `code [[Old Name]]` and [[New Name#Part]]',
      'An unclosed ` backtick and [[New Name]].',
      '',
      'Escaped \\`[[New Name]]\\` is text.',
    ].join('\n'));
  });

  it('finds code the way the renderer does (offsets into the original text)', () => {
    const text = 'a `b` c\n\n```\nx\n```\n';
    expect(codeRanges(text).map(([s, e]) => text.slice(s, e))).toEqual(['```\nx\n```\n', '`b`']);
  });
});
