import { describe, expect, it } from 'vitest';
import { clusterAncestry, isClusterPath, isWithinCluster } from '../../src/policy/cluster-path.js';
import { decideInclusion, mostSpecificPolicy, type PageFacts, type PolicyFacts } from '../../src/policy/inclusion-decision.js';

const SET_AT = new Date('2026-01-02T10:00:00Z');

function policies(rows: Record<string, 'include' | 'exclude'>): Map<string, PolicyFacts> {
  return new Map(Object.entries(rows).map(([cluster, action]) => [cluster, { cluster, action, reason: `${cluster} ${action}d`, setBy: 'ada', setAt: SET_AT }]));
}

function page(overrides: Partial<PageFacts> = {}): PageFacts {
  return { slug: 'a-page', isSystem: false, frontmatter: {}, clusters: [], inTrash: false, ...overrides };
}

const noPattern = { systemPagePattern: null };
const decide = (p: Partial<PageFacts>, rows: Record<string, 'include' | 'exclude'> = {}, pattern: RegExp | null = null) =>
  decideInclusion(page(p), policies(rows), { systemPagePattern: pattern });

describe('the inclusion decision (first match wins)', () => {
  describe('rule 0: a page in the trash', () => {
    it('is excluded whatever else it says', () => {
      const d = decide({ inTrash: true, frontmatter: { kg_include: true }, clusters: ['docs'] }, { docs: 'include' });
      expect(d).toEqual({ included: false, reason: 'page_in_trash', explanation: 'excluded: the page is in the trash' });
    });
  });

  describe('rule 1: system pages', () => {
    it('excludes a page flagged system (the stored flag or the frontmatter), even with kg_include: true and an included cluster', () => {
      for (const p of [{ isSystem: true }, { frontmatter: { system: true } }]) {
        const d = decide({ ...p, frontmatter: { ...(p.frontmatter ?? {}), kg_include: true }, clusters: ['docs'] }, { docs: 'include' });
        expect(d).toEqual({ included: false, reason: 'system_page', explanation: 'excluded: it is a system page (frontmatter `system: true`)' });
      }
    });

    it('excludes a page whose slug matches KURATE_SYSTEM_PAGE_PATTERN (a search, as a regex test)', () => {
      const pattern = /^(sidebar|templates-)/;
      const d = decide({ slug: 'templates-meeting', frontmatter: { kg_include: true } }, {}, pattern);
      expect(d).toMatchObject({ included: false, reason: 'system_page' });
      expect(d.explanation).toBe('excluded: it is a system page (its slug matches KURATE_SYSTEM_PAGE_PATTERN ^(sidebar|templates-))');
      expect(decide({ slug: 'my-sidebar', frontmatter: { kg_include: true } }, {}, pattern)).toMatchObject({ included: true });
      expect(decide({ slug: 'x-sidebar-y', frontmatter: { kg_include: true } }, {}, /sidebar/)).toMatchObject({ reason: 'system_page' });
    });

    it('ignores system: false and non-boolean values', () => {
      expect(decide({ frontmatter: { system: false, kg_include: true } })).toMatchObject({ included: true, reason: 'page_override' });
      expect(decide({ frontmatter: { system: 'yes', kg_include: true } })).toMatchObject({ included: true });
    });
  });

  describe('rules 2 and 3: the page override', () => {
    it('kg_include: false excludes even in an included cluster', () => {
      expect(decide({ frontmatter: { kg_include: false }, clusters: ['docs'] }, { docs: 'include' })).toEqual({
        included: false, reason: 'page_override', explanation: 'excluded: its frontmatter says `kg_include: false`',
      });
    });

    it('kg_include: true includes even in an excluded cluster, a cluster without policy, or no cluster', () => {
      const expected = { included: true, reason: 'page_override', explanation: 'included: its frontmatter says `kg_include: true`' };
      expect(decide({ frontmatter: { kg_include: true }, clusters: ['personal'] }, { personal: 'exclude' })).toEqual(expected);
      expect(decide({ frontmatter: { kg_include: true }, clusters: ['personal'] })).toEqual(expected);
      expect(decide({ frontmatter: { kg_include: true } })).toEqual(expected);
    });

    it('reads only real booleans ("true" as text is no override)', () => {
      expect(decide({ frontmatter: { kg_include: 'true' }, clusters: ['docs'] })).toMatchObject({ reason: 'default' });
      expect(decide({ frontmatter: { kg_include: 0 }, clusters: ['docs'] }, { docs: 'include' })).toMatchObject({ included: true, reason: 'cluster_policy' });
    });
  });

  describe('rule 4: the clusters’ policy rows', () => {
    it('applies the cluster’s own row, with who set it, when and why', () => {
      const d = decide({ clusters: ['personal'] }, { personal: 'exclude' });
      expect(d).toMatchObject({ included: false, reason: 'cluster_policy', viaCluster: 'personal' });
      expect(d.policy).toMatchObject({ cluster: 'personal', action: 'exclude' });
      expect(d.explanation).toBe('excluded: cluster `personal` has policy exclude, set by ada on 2026-01-02 ("personal excluded")');
      expect(decide({ clusters: ['docs'] }, { docs: 'include' }).explanation).toBe(
        'included: cluster `docs` has policy include, set by ada on 2026-01-02 ("docs included")');
    });

    it('lets a sub-cluster follow its parent’s row when it has none', () => {
      const d = decide({ clusters: ['work/secret'] }, { work: 'exclude' });
      expect(d).toMatchObject({ included: false, reason: 'cluster_policy', viaCluster: 'work/secret', policy: { cluster: 'work' } });
      expect(d.explanation).toBe('excluded: cluster `work/secret` follows `work`, which has policy exclude, set by ada on 2026-01-02 ("work excluded")');
    });

    it('most specific wins: a/b’s own row before a’s, in both directions', () => {
      expect(decide({ clusters: ['a/b'] }, { a: 'exclude', 'a/b': 'include' })).toMatchObject({ included: true, policy: { cluster: 'a/b' } });
      expect(decide({ clusters: ['a/b'] }, { a: 'include', 'a/b': 'exclude' })).toMatchObject({ included: false, policy: { cluster: 'a/b' } });
      // The parent's own pages follow the parent.
      expect(decide({ clusters: ['a'] }, { a: 'include', 'a/b': 'exclude' })).toMatchObject({ included: true, policy: { cluster: 'a' } });
    });

    it('does not take a sibling’s or a prefix’s row', () => {
      expect(decide({ clusters: ['a/c'] }, { 'a/b': 'include' })).toMatchObject({ reason: 'default' });
      expect(decide({ clusters: ['ab'] }, { a: 'include' })).toMatchObject({ reason: 'default' });
      expect(decide({ clusters: ['a'] }, { 'a/b': 'include' })).toMatchObject({ reason: 'default' });
    });

    it('with several clusters, any exclude wins (fail closed), whatever the order, and says over what', () => {
      for (const clusters of [['docs', 'personal'], ['personal', 'docs']]) {
        const d = decide({ clusters }, { docs: 'include', personal: 'exclude' });
        expect(d).toMatchObject({ included: false, reason: 'cluster_policy', viaCluster: 'personal' });
        expect(d.explanation).toMatch(/^excluded: cluster `personal` has policy exclude, .* \(an exclude wins over the include of `docs`\)$/);
      }
    });

    it('with several excludes, names the first in frontmatter order', () => {
      expect(decide({ clusters: ['b', 'a'] }, { a: 'exclude', b: 'exclude' })).toMatchObject({ viaCluster: 'b', policy: { cluster: 'b' } });
    });

    it('with several clusters, one include and the others without a row includes', () => {
      const d = decide({ clusters: ['unknown', 'docs', 'other/x'] }, { docs: 'include' });
      expect(d).toMatchObject({ included: true, reason: 'cluster_policy', viaCluster: 'docs' });
    });

    it('combines inheritance and several clusters: an inherited exclude still wins over an own include', () => {
      expect(decide({ clusters: ['docs', 'work/secret'] }, { docs: 'include', work: 'exclude' })).toMatchObject({
        included: false, viaCluster: 'work/secret', policy: { cluster: 'work' },
      });
      expect(decide({ clusters: ['work/public', 'personal'] }, { work: 'include', 'work/public': 'include' })).toMatchObject({
        included: true, policy: { cluster: 'work/public' },
      });
    });

    it('counts a cluster named twice once', () => {
      expect(decide({ clusters: ['docs', 'docs'] }, { docs: 'include' })).toMatchObject({ included: true });
      expect(decide({ clusters: ['x', 'x'] }).explanation).toBe('excluded: no policy covers cluster `x` (the default is exclude)');
    });
  });

  describe('rule 5: the default', () => {
    it('excludes a page without a cluster, or whose clusters no row covers', () => {
      expect(decide({})).toEqual({
        included: false, reason: 'default', explanation: 'excluded: the page has no cluster, and no policy covers the root cluster `root` (the default is exclude)',
      });
      expect(decide({ clusters: ['x', 'y/z'] })).toEqual({
        included: false, reason: 'default', explanation: 'excluded: no policy covers clusters `x`, `y/z` (the default is exclude)',
      });
    });
  });

  describe('the root cluster', () => {
    it('holds the pages in no cluster, so that a policy row for `root` includes or excludes them', () => {
      expect(decide({}, { root: 'include' })).toMatchObject({ included: true, reason: 'cluster_policy', viaCluster: 'root' });
      expect(decide({}, { root: 'exclude' })).toMatchObject({ included: false, reason: 'cluster_policy', viaCluster: 'root' });
      // A page with a cluster of its own is not in the root cluster.
      expect(decide({ clusters: ['docs'] }, { root: 'include' })).toMatchObject({ included: false, reason: 'default' });
    });
  });

  describe('precedence between the rules', () => {
    const cases: [string, Partial<PageFacts>, Record<string, 'include' | 'exclude'>, boolean, string][] = [
      ['trash over system', { inTrash: true, isSystem: true }, {}, false, 'page_in_trash'],
      ['system over kg_include: true', { isSystem: true, frontmatter: { kg_include: true } }, {}, false, 'system_page'],
      ['kg_include: false over an include', { frontmatter: { kg_include: false }, clusters: ['d'] }, { d: 'include' }, false, 'page_override'],
      ['kg_include: true over an exclude', { frontmatter: { kg_include: true }, clusters: ['d'] }, { d: 'exclude' }, true, 'page_override'],
      ['a policy over the default', { clusters: ['d'] }, { d: 'include' }, true, 'cluster_policy'],
      ['the default last', { clusters: ['d'] }, {}, false, 'default'],
    ];
    it.each(cases)('%s', (_name, p, rows, included, reason) => {
      expect(decide(p, rows)).toMatchObject({ included, reason });
    });
  });

  it('mostSpecificPolicy looks at the cluster, then its parent, and nothing else', () => {
    const rows = policies({ a: 'include', 'a/b': 'exclude' });
    expect(mostSpecificPolicy('a/b', rows)?.cluster).toBe('a/b');
    expect(mostSpecificPolicy('a/c', rows)?.cluster).toBe('a');
    expect(mostSpecificPolicy('b', rows)).toBeUndefined();
    expect(decideInclusion(page({ clusters: ['a/c'] }), rows, noPattern).policy?.cluster).toBe('a');
  });
});

describe('cluster paths', () => {
  it('accepts a slug or parent/child, nothing deeper or stranger', () => {
    for (const ok of ['personal', 'work/secret', 'über-café', 'a1/b2']) expect(isClusterPath(ok), ok).toBe(true);
    for (const bad of ['', 'a/b/c', 'Personal', 'has space', '../x', 'a/', '/a', 'a//b', 'a%2Fb']) expect(isClusterPath(bad), bad).toBe(false);
  });

  it('orders ancestry most specific first, and knows what lies within a cluster', () => {
    expect(clusterAncestry('a/b')).toEqual(['a/b', 'a']);
    expect(clusterAncestry('a')).toEqual(['a']);
    expect(isWithinCluster('a/b', 'a')).toBe(true);
    expect(isWithinCluster('a', 'a')).toBe(true);
    expect(isWithinCluster('ab', 'a')).toBe(false);
    expect(isWithinCluster('a', 'a/b')).toBe(false);
  });
});
