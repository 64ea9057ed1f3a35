import { describe, expect, it } from 'vitest';
import { linkedCandidates, withLinkedSlots } from '../../src/search/linked-slots.js';

describe('linked-page slots (Page Graph)', () => {
  const ranking = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];

  it('breaks a tie between linked pages by their place in the ranking, not by their ids', () => {
    const links = [
      { fromId: 'a', toId: 'zz-ranked-higher', inlinks: 2 },
      { fromId: 'a', toId: 'aa-ranked-lower', inlinks: 2 },
      { fromId: 'a', toId: 'mm-unranked', inlinks: 2 },
    ];
    const longer = [...ranking, 'zz-ranked-higher', 'aa-ranked-lower'];
    expect(linkedCandidates(longer, links, 3, 10).map((c) => c.pageId)).toEqual(['zz-ranked-higher', 'aa-ranked-lower', 'mm-unranked']);
  });

  it('scores pages linked from the best hits by their rank, damped by the page’s inlinks, skipping pages already shown', () => {
    const candidates = linkedCandidates(
      ranking,
      [
        { fromId: 'a', toId: 'x', inlinks: 1 },
        { fromId: 'b', toId: 'x', inlinks: 1 },
        { fromId: 'a', toId: 'hub', inlinks: 500 },
        { fromId: 'c', toId: 'y', inlinks: 0 },
        { fromId: 'a', toId: 'd', inlinks: 1 },
        { fromId: 'e', toId: 'z', inlinks: 0 },
      ],
      3,
      10,
    );
    expect(candidates.map((c) => c.pageId)).toEqual(['x', 'y', 'hub']);
    expect(candidates[0].linkedFrom).toEqual([1, 2]);
    expect(candidates[0].score).toBeCloseTo((1 + 1 / 2) / Math.log(Math.E + 1), 10);
    expect(candidates[2].score).toBeCloseTo(1 / Math.log(Math.E + 500), 10);
  });

  it('places the chosen pages at ranks 4, 7, 10 and keeps every other page once, in order', () => {
    expect(withLinkedSlots(ranking, [{ pageId: 'x', score: 1, linkedFrom: [1] }, { pageId: 'k', score: 0.5, linkedFrom: [2] }], 2)).toEqual([
      'a', 'b', 'c', 'x', 'd', 'e', 'k', 'f', 'g', 'h', 'i', 'j', 'l',
    ]);
    expect(withLinkedSlots(['a'], [{ pageId: 'x', score: 1, linkedFrom: [1] }], 3)).toEqual(['a', 'x']);
    expect(withLinkedSlots(ranking, [{ pageId: 'x', score: 1, linkedFrom: [1] }], 0)).toEqual(ranking);
  });
});
