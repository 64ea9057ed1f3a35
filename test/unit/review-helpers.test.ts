import { describe, expect, it } from 'vitest';
import { uniqueAliases } from '../../src/curation/curation.service.js';
import type { ProposalRow } from '../../src/review/proposals.repository.js';
import { decodeCursor, encodeCursor } from '../../src/review/review-queue.service.js';
import { nodeSignature, edgeSignature, normaliseName } from '../../src/admin/review-signature.js';
import { vocabularyKey } from '../../src/admin/review-vocabulary.js';
import { returnedRows } from '../../src/db/sql-rows.js';
import { safeReturn, withParams } from '../../src/admin/web-helpers.js';

describe('queue cursors', () => {
  const row = (sortValue: string, id: string) => ({ sortValue, id }) as ProposalRow;

  it('round-trip the sort value and the id', () => {
    expect(decodeCursor(encodeCursor(row('0.85', '42')), 'confidence')).toEqual({ value: '0.85', id: '42' });
    expect(decodeCursor(encodeCursor(row('7', '3')), 'support')).toEqual({ value: '7', id: '3' });
    expect(decodeCursor(encodeCursor(row('2026-01-02 10:11:12.123456+00', '9')), 'age')).toEqual({ value: '2026-01-02 10:11:12.123456+00', id: '9' });
  });

  it('refuse what did not come from this sort, or was tampered with', () => {
    const bad = [
      'not base64 at all!', Buffer.from('{"a":1}').toString('base64url'), Buffer.from('["0.5"]').toString('base64url'),
      Buffer.from('["0.5","-1"]').toString('base64url'), Buffer.from('[0.5,"1"]').toString('base64url'),
      Buffer.from('["1; DROP TABLE x","1"]').toString('base64url'),
    ];
    for (const text of bad) expect(() => decodeCursor(text, 'confidence'), text).toThrow('That page cursor is not valid');
    expect(() => decodeCursor(encodeCursor(row('0.85', '1')), 'age')).toThrow();
    expect(() => decodeCursor(encodeCursor(row('0.5', '1')), 'support')).toThrow();
    expect(() => decodeCursor(encodeCursor(row('2026-01-02', '1')), 'age')).toThrow();
    // Offsets PostgreSQL does not read (beyond ±15:59) are refused here, not by the database (a 500).
    for (const at of ['2026-01-01T00:00:00+99:99', '2026-01-01T00:00:00+16', '2026-01-01 00:00:00-15:60']) {
      expect(() => decodeCursor(encodeCursor(row(at, '1')), 'age'), at).toThrow('That page cursor is not valid');
    }
    for (const at of ['2026-01-01T00:00:00+15:59', '2026-01-01 00:00:00-05', '2026-01-01T00:00:00.5Z']) {
      expect(decodeCursor(encodeCursor(row(at, '1')), 'age')).toEqual({ value: at, id: '1' });
    }
  });
});

describe('signatures and vocabulary', () => {
  it('normalise names (NFKC, case, whitespace) and join edge signatures', () => {
    expect(normaliseName('  PostgreSQL\u00a0 15 ')).toBe('postgresql 15');
    expect(nodeSignature('Ｒｕｓｔ', 'technology')).toBe('rust|technology');
    expect(edgeSignature('a|person', 'uses', 'b|technology')).toBe('a|person|uses|b|technology');
  });

  it('compares imported terms forgivingly', () => {
    expect(vocabularyKey(' Is A ')).toBe('is_a');
    expect(vocabularyKey('alternative-to')).toBe('alternative_to');
    expect(vocabularyKey('Technology')).toBe('technology');
  });

  it('keeps aliases unique (case-insensitive), trimmed, in order, without the name itself', () => {
    expect(uniqueAliases(['  PG ', 'pg', 'Postgres', '', 'postgresql', 'Post  gres'], 'PostgreSQL')).toEqual(['PG', 'Postgres', 'Post gres']);
  });
});

describe('web helpers', () => {
  it('only go back to the review UI', () => {
    expect(safeReturn('/admin/knowledge-graph?type=person')).toBe('/admin/knowledge-graph?type=person');
    expect(safeReturn('/admin/knowledge-graph/ui/audit')).toBe('/admin/knowledge-graph/ui/audit');
    for (const bad of ['https://evil.example/', '//evil.example', '/admin/knowledge-graph//evil', '/admin/users', '/admin/knowledge-graphx', '/admin/knowledge-graph\\x', '']) {
      expect(safeReturn(bad), bad).toBe('/admin/knowledge-graph');
    }
  });

  it('set and replace query parameters', () => {
    expect(withParams('/a?x=1&done=2', { done: '3', focus: null })).toBe('/a?x=1&done=3');
    expect(withParams('/a', { q: 'a b', empty: '' })).toBe('/a?q=a+b');
  });

  it('unwrap the rows of an UPDATE … RETURNING', () => {
    expect(returnedRows([[{ id: 1 }], 1])).toEqual([{ id: 1 }]);
    expect(returnedRows([{ id: 1 }, { id: 2 }])).toEqual([{ id: 1 }, { id: 2 }]);
  });
});
