import { describe, expect, it } from 'vitest';
import { nextCursor, pageOf, readCursor } from '../../src/mcp/mcp-cursor.js';
import { fitToBudget, passagesOf, questionWords } from '../../src/mcp/page-passages.js';

const PAGE = `---
title: Graph View
tags: [graph]
---
# Graph View

The graph view shows your notes as a network of nodes.

## Opening it

Run the command Show Graph from the palette. ${'More words about opening. '.repeat(40)}

## Styling

Colours and sizes come from the settings file. ${'Styling details go here. '.repeat(40)}

### Per type

Each note type can have its own colour.
`;

describe('passages for agents', () => {
  it('keeps the words of a question that tell passages apart', () => {
    expect(questionWords('How do I open the Graph view?')).toEqual(['open', 'graph', 'view']);
  });

  it('cuts a page into heading-aware passages, frontmatter left out, and scores them against the question', () => {
    const passages = passagesOf(PAGE, questionWords('colours of note types'));
    expect(passages.some((p) => p.text.includes('title:'))).toBe(false);
    const best = [...passages].sort((a, b) => b.score - a.score)[0];
    expect(best.headingPath.at(-1)).toMatch(/Styling|Per type/);
    expect(passages.every((p) => p.headingPath[0] === 'Graph View')).toBe(true);
  });

  it('never goes over the token budget, leaves out passages that match nothing, and can keep page order', () => {
    const passages = passagesOf(PAGE, questionWords('styling colours'));
    for (const budget of [50, 150, 400, 5000]) {
      const chosen = fitToBudget(passages, budget, { inPageOrder: true, needMatch: true });
      expect(chosen.reduce((n, p) => n + p.tokens, 0)).toBeLessThanOrEqual(budget);
      expect(chosen.every((p) => p.score > 0)).toBe(true);
      expect(chosen.map((p) => p.position)).toEqual([...chosen.map((p) => p.position)].sort((a, b) => a - b));
    }
    expect(fitToBudget(passages, 5000, { inPageOrder: false, needMatch: false })).toHaveLength(passages.length);
  });
});

describe('list cursors', () => {
  it('walks a list to its end and refuses a cursor of another list, or one it did not make', () => {
    const items = Array.from({ length: 7 }, (_, i) => i);
    const first = pageOf('numbers', items, undefined, 3);
    expect(first).toMatchObject({ items: [0, 1, 2], total: 7 });
    const second = pageOf('numbers', items, first.nextCursor!, 3);
    const third = pageOf('numbers', items, second.nextCursor!, 3);
    expect([...second.items, ...third.items]).toEqual([3, 4, 5, 6]);
    expect(third.nextCursor).toBeNull();
    expect(() => readCursor('letters', first.nextCursor!, 3)).toThrow(/belongs to another list/);
    expect(() => readCursor('numbers', 'garbage!', 3)).toThrow(/not one Kurate gave/);
    // An offset no list reaches (1e20 is an integer, but no bigint) is refused like any cursor Kurate did not give.
    const far = (o: number) => Buffer.from(JSON.stringify({ l: 'numbers', o })).toString('base64url');
    expect(() => readCursor('numbers', far(1e20), 3)).toThrow(/belongs to another list/);
    expect(() => readCursor('numbers', far(2 ** 53), 3)).toThrow(/belongs to another list/);
    expect(readCursor('numbers', far(1_000_000), 3)).toEqual({ offset: 1_000_000, limit: 3 });
    expect(nextCursor('numbers', { offset: 0, limit: 3 }, 0, 7)).toBeNull();
  });
});
