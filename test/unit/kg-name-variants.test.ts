import { describe, expect, it } from 'vitest';
import { ENTITY_TYPES } from '../../src/extractors/extraction.types.js';
import { MAX_PROPOSAL_ALIASES, otherNames, proposalOutranks, variantForms, variantSignatures } from '../../src/kg/name-variants.js';

const proposal = (name: string, rawConfidence: number, nodeType = 'concept', quote = 'q') => ({ name, nodeType, rawConfidence, quote });
const entity = (name: string, confidence: number, type = 'concept', evidence = 'q') => ({ name, type, confidence, evidence });

describe('the forms of a name', () => {
  it('writes a key with spaces or hyphens, singular or plural', () => {
    expect(variantForms('graph view').sort()).toEqual(['graph view', 'graph views', 'graph-view', 'graph-views']);
    expect(variantForms('box')).toContain('boxes');
    expect(variantForms('query')).toContain('queries');
  });
});

describe('the signatures a variant mention may carry', () => {
  it('maps every form with every type to the proposal, except its own signature', () => {
    const map = variantSignatures([{ signature: 'task notes|other', name: 'Task Notes' }]);
    expect(map.get('task note|concept')).toBe('task notes|other');
    expect(map.get('task-notes|product')).toBe('task notes|other');
    expect(map.has('task notes|other')).toBe(false);
    expect(map.size).toBe(4 * ENTITY_TYPES.length - 1);
  });

  it('gives a form to the first proposal that has it', () => {
    const map = variantSignatures([
      { signature: 'tag|concept', name: 'Tag' },
      { signature: 'tags|other', name: 'tags' },
    ]);
    expect(map.get('tags|concept')).toBe('tag|concept');
    expect(map.get('tag|other')).toBe('tag|concept');
  });
});

describe('which spelling names a proposal', () => {
  it('is the higher raw score first', () => {
    expect(proposalOutranks(entity('cli', 0.8), proposal('CLI', 0.7))).toBe(true);
    expect(proposalOutranks(entity('CLI', 0.7), proposal('cli', 0.8))).toBe(false);
  });

  it('breaks a tie by name, type and quote in code-point order, the same whichever comes first', () => {
    // Capitals come before lower case, and a singular before its plural (a prefix first).
    expect(proposalOutranks(entity('CLI', 0.6), proposal('cli', 0.6))).toBe(true);
    expect(proposalOutranks(entity('cli', 0.6), proposal('CLI', 0.6))).toBe(false);
    expect(proposalOutranks(entity('Task Note', 0.6), proposal('Task Notes', 0.6))).toBe(true);
    expect(proposalOutranks(entity('Graph View', 0.6, 'concept'), proposal('Graph View', 0.6, 'other'))).toBe(true);
    expect(proposalOutranks(entity('Graph View', 0.6, 'other'), proposal('Graph View', 0.6, 'concept'))).toBe(false);
    expect(proposalOutranks(entity('X', 0.6, 'concept', 'a'), proposal('X', 0.6, 'concept', 'b'))).toBe(true);
    // The same support again is no better than itself.
    expect(proposalOutranks(entity('X', 0.6), proposal('X', 0.6))).toBe(false);
  });

  it('orders as PostgreSQL\'s "C" collation does, by UTF-8 bytes (not UTF-16 units)', () => {
    // U+FF21 (fullwidth A) sorts before U+1F600 in UTF-8 and code points, after it in UTF-16 code units.
    expect(proposalOutranks(entity('\uFF21', 0.6), proposal('\u{1F600}', 0.6))).toBe(true);
  });
});

describe('a proposal\'s other names', () => {
  it('unites them, one per spelling without case (the first in code-point order), in order without case', () => {
    expect(otherNames(['transclusion'], ['Transclusion', 'embedding', 'transclusion'])).toEqual(['embedding', 'Transclusion']);
  });

  it('keeps the same first ten whatever order they came in', () => {
    const names = Array.from({ length: 14 }, (_, i) => `name ${String.fromCharCode(97 + i)}`);
    const forward = names.reduce((acc, n) => otherNames(acc, [n]), [] as string[]);
    const backward = [...names].reverse().reduce((acc, n) => otherNames(acc, [n]), [] as string[]);
    expect(forward).toHaveLength(MAX_PROPOSAL_ALIASES);
    expect(backward).toEqual(forward);
  });
});
