import { describe, expect, it } from 'vitest';
import { CO_MENTION_STRENGTH, HOP_DECAY, closestFirst, nextHop, queryWindows, rankPagesByEntities, type EntityReach, type GraphEdge } from '../../src/search/graph-proximity.js';

describe('query windows for entity names', () => {
  it('gives every 1-3-word window, lower-cased, without windows that start or end with a stop word', () => {
    expect(queryWindows('Open the Daily Note')).toEqual(['open', 'daily', 'note', 'daily note', 'open the daily']);
    expect(queryWindows('VS Code graph-view')).toEqual(['vs', 'code', 'graph-view', 'vs code', 'code graph-view', 'vs code graph-view']);
    expect(queryWindows('how to')).toEqual([]);
  });
});

describe('multi-source breadth-first search over weighted edges', () => {
  const edge = (sourceId: string, targetId: string, kind: GraphEdge['kind'] = 'typed', weight = 1): GraphEdge => ({ sourceId, targetId, kind, weight });
  const seeds = () => new Map<string, EntityReach>([['a', { proximity: 1, hops: 0, fromId: 'a' }], ['z', { proximity: 0.9, hops: 0, fromId: 'z' }]]);

  it('walks edges both ways, keeps the best proximity, and never revisits a reached entity', () => {
    const found = nextHop(seeds(), ['a', 'z'], [edge('a', 'b'), edge('c', 'a', 'co_mention', 1), edge('z', 'b'), edge('a', 'z')], 1);
    expect(found.get('b')).toEqual({ proximity: HOP_DECAY, hops: 1, fromId: 'a' });
    expect(found.get('c')).toEqual({ proximity: HOP_DECAY * CO_MENTION_STRENGTH, hops: 1, fromId: 'a' });
    expect(found.has('z')).toBe(false);
  });

  it('weakens co-mention edges by their weight and ignores entities outside the frontier', () => {
    const found = nextHop(seeds(), ['a'], [edge('a', 'b', 'co_mention', 0.5), edge('z', 'q')], 1);
    expect(found.get('b')!.proximity).toBeCloseTo(HOP_DECAY * CO_MENTION_STRENGTH * 0.5, 10);
    expect(found.has('q')).toBe(false);
    expect(closestFirst(new Map([['x', { proximity: 0.1, hops: 1, fromId: 'a' }], ['y', { proximity: 0.3, hops: 1, fromId: 'a' }]]), 1)).toEqual(['y']);
  });
});

describe('pages ranked by the entities they mention', () => {
  it('adds proximity times rarity, so a hub entity on every page lifts little', () => {
    const reached = new Map<string, EntityReach>([
      ['hub', { proximity: 1, hops: 0, fromId: 'hub' }],
      ['rare', { proximity: 0.5, hops: 1, fromId: 'hub' }],
    ]);
    const ranked = rankPagesByEntities(
      [
        { pageId: 'p1', nodeId: 'hub', pages: 100 },
        { pageId: 'p2', nodeId: 'hub', pages: 100 },
        { pageId: 'p2', nodeId: 'rare', pages: 1 },
        { pageId: 'p2', nodeId: 'rare', pages: 1 },
        { pageId: 'p3', nodeId: 'unreached', pages: 1 },
      ],
      reached,
      100,
    );
    expect(ranked.map((r) => r.pageId)).toEqual(['p2', 'p1']);
    expect(ranked[0].nodeIds).toEqual(['hub', 'rare']);
    expect(ranked[0].score).toBeCloseTo(Math.log(2) + 0.5 * Math.log(101), 10);
  });
});
