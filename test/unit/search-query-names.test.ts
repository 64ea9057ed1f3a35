import { describe, expect, it } from 'vitest';
import { NameDictionary, nameKeys, singular, understandQuery, type NamedThing } from '../../src/search/query-names.js';
import { blendNamed, keepInTop } from '../../src/search/query-ranking.js';

const things: NamedThing[] = [
  { kind: 'page', id: 'p-backlinks', name: 'Backlinks', names: ['Backlinks', 'Plugins/Backlinks'] },
  { kind: 'page', id: 'p-2fa', name: 'Two-factor authentication', names: ['Two-factor authentication', '2FA'] },
  { kind: 'page', id: 'p-cafe', name: 'Café mode', names: ['Café mode'] },
  { kind: 'page', id: 'p-the', name: 'The', names: ['The'] },
  { kind: 'entity', id: 'e-pg', name: 'PostgreSQL', names: ['PostgreSQL', 'Postgres', 'psql'], type: 'technology' },
  { kind: 'page', id: 'p-db', name: 'Database setup', names: ['Database setup', 'PostgreSQL'] },
];
const dictionary = new NameDictionary(things);

describe('names in a query', () => {
  it('compares words without case, diacritics, plural or punctuation', () => {
    expect(singular('libraries')).toBe('library');
    expect(singular('classes')).toBe('class');
    expect(singular('status')).toBe('status');
    expect(nameKeys('Two-Factor Authentications')).toEqual(['two factor authentication', 'twofactorauthentication']);
    expect(nameKeys('the')).toEqual([]);
  });

  it('recognises titles and aliases whole, by parts of a path, in several words and run together', () => {
    const ids = (q: string) => dictionary.recognise(q).map((r) => r.target.id);
    expect(ids('plugins/backlinks')).toEqual(['p-backlinks']);
    expect(ids('how do BACKLINKS work')).toEqual(['p-backlinks']);
    expect(ids('set up twofactor authentication')).toEqual(['p-2fa']);
    expect(ids('enable 2fa')).toEqual(['p-2fa']);
    expect(ids('cafe modes')).toEqual(['p-cafe']);
    expect(ids('the quick fox')).toEqual([]);
  });

  it('measures how much of the query a name covers (stop words aside)', () => {
    const [whole] = dictionary.recognise('the backlinks');
    expect(whole.coverage).toBe(1);
    const [part] = dictionary.recognise('backlinks panel colours');
    expect(part.coverage).toBeCloseTo(1 / 3, 6);
    expect(part.text).toBe('backlinks');
  });

  it('expands a named entity with its other names and leads to pages bearing them', () => {
    const u = understandQuery(dictionary, 'tune postgres');
    expect(u.entities.map((e) => e.id)).toEqual(['e-pg']);
    expect(u.expansion).toEqual(['PostgreSQL', 'psql']);
    // The page whose alias is the entity's name, at the entity's share of the strength.
    expect(u.namedPages.get('p-db')).toBeCloseTo(0.5 * 0.5 * 0.8, 6);
    expect(u.namedBy.get('p-db')).toBe('postgres');
  });
});

describe('blending named pages into the words’ ranking', () => {
  it('puts a page named by the whole query first and adds named pages no word matched', () => {
    const blended = blendNamed([{ pageId: 'a', score: 10 }, { pageId: 'b', score: 6 }], new Map([['b', 1], ['c', 0.5]]), 1);
    expect(blended.map((b) => b.pageId)).toEqual(['b', 'a', 'c']);
    expect(blended[0]).toMatchObject({ lexical: 6, named: 1 });
    expect(blendNamed([{ pageId: 'a', score: 10 }, { pageId: 'b', score: 6 }], new Map([['b', 1]]), 0).map((b) => b.pageId)).toEqual(['a', 'b']);
  });

  it('keeps named pages in the first three whatever another list did', () => {
    expect(keepInTop(['v1', 'v2', 'v3', 'n1', 'x'], ['n1'])).toEqual(['v1', 'v2', 'n1', 'v3', 'x']);
    expect(keepInTop(['n1', 'v1', 'v2', 'v3'], ['n1'])).toEqual(['n1', 'v1', 'v2', 'v3']);
    expect(keepInTop(['v1', 'v2', 'v3', 'v4', 'n2', 'n1'], ['n1', 'n2'])).toEqual(['v1', 'n1', 'n2', 'v2', 'v3', 'v4']);
    expect(keepInTop(['a', 'b'], [])).toEqual(['a', 'b']);
  });
});
