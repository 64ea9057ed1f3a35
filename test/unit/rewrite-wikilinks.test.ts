import { describe, expect, it } from 'vitest';
import { rewriteWikilinks } from '../../src/pages/pages.service.js';

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
});
