import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/kurate-config.js';
import { describeChanges } from '../../src/policy/policy-impact.service.js';
import { toTsv } from '../../src/policy/tsv.js';

describe('policy configuration', () => {
  it('defaults: no system pattern, review every 90 days, reconcile 1,000 pages per transaction', () => {
    expect(loadConfig({}).policy).toEqual({ systemPagePattern: null, reviewDays: 90, reconcileBatchSize: 1000 });
  });

  it('reads KURATE_SYSTEM_PAGE_PATTERN, KURATE_POLICY_REVIEW_DAYS and KURATE_POLICY_RECONCILE_BATCH', () => {
    const { policy } = loadConfig({ KURATE_SYSTEM_PAGE_PATTERN: '^(sidebar|templates/)', KURATE_POLICY_REVIEW_DAYS: '30', KURATE_POLICY_RECONCILE_BATCH: '100' });
    expect(policy.systemPagePattern?.source).toBe('^(sidebar|templates\\/)');
    expect(policy.systemPagePattern?.test('sidebar-left')).toBe(true);
    expect(policy).toMatchObject({ reviewDays: 30, reconcileBatchSize: 100 });
  });

  it.each([
    [{ KURATE_POLICY_REVIEW_DAYS: 'ninety' }, /KURATE_POLICY_REVIEW_DAYS must be a whole number of days \(got "ninety"\)/],
    [{ KURATE_POLICY_REVIEW_DAYS: '0' }, /KURATE_POLICY_REVIEW_DAYS must not be less than 1/],
    [{ KURATE_POLICY_RECONCILE_BATCH: '0' }, /KURATE_POLICY_RECONCILE_BATCH must not be less than 1/],
    [{ KURATE_POLICY_RECONCILE_BATCH: '2.5' }, /KURATE_POLICY_RECONCILE_BATCH must be a whole number of pages/],
    [{ KURATE_SYSTEM_PAGE_PATTERN: '^(unclosed' }, /KURATE_SYSTEM_PAGE_PATTERN is not a valid regular expression/],
    [{ KURATE_SYSTEM_PAGE_PATTERN: '\\bsidebar' }, /KURATE_SYSTEM_PAGE_PATTERN uses word boundaries .* which PostgreSQL reads differently/],
    [{ KURATE_SYSTEM_PAGE_PATTERN: '(?<=x)y' }, /uses lookbehind/],
    [{ KURATE_SYSTEM_PAGE_PATTERN: '(?<name>x)' }, /uses named groups/],
    [{ KURATE_SYSTEM_PAGE_PATTERN: '(a)\\1' }, /uses backreferences/],
    [{ KURATE_SYSTEM_PAGE_PATTERN: '\\p{L}' }, /uses Unicode property or code escapes/],
  ])('refuses %o with a sentence naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('tab-separated values', () => {
  it('writes a header row, empty cells for null, ISO dates, and escapes tabs, newlines and backslashes', () => {
    const rows = [
      { name: 'a\tb', note: 'line 1\nline 2\r', path: 'C:\\x', when: new Date('2026-01-02T03:04:05Z'), none: null },
    ];
    const tsv = toTsv(
      [
        { header: 'name', value: (r: (typeof rows)[0]) => r.name },
        { header: 'note', value: (r) => r.note },
        { header: 'path', value: (r) => r.path },
        { header: 'when', value: (r) => r.when },
        { header: 'none', value: (r) => r.none },
      ],
      rows,
    );
    expect(tsv).toBe('name\tnote\tpath\twhen\tnone\na\\tb\tline 1\\nline 2\\r\tC:\\\\x\t2026-01-02T03:04:05.000Z\t\n');
  });

  it('has a header even with no rows', () => {
    expect(toTsv([{ header: 'cluster', value: () => 'x' }], [])).toBe('cluster\n');
  });
});

describe('estimate summaries', () => {
  it('lists what would be hidden and revealed in words', () => {
    expect(describeChanges([{ kind: 'pages', hide: 0, reveal: 0 }])).toBe('would hide nothing; reveal nothing');
    expect(describeChanges([{ kind: 'pages', hide: 1, reveal: 0 }, { kind: 'nodes', hide: 3, reveal: 0 }, { kind: 'edges', hide: 2, reveal: 1 }]))
      .toBe('would hide 1 page, 3 nodes and 2 edges; reveal 1 edge');
  });
});
