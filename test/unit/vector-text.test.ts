import { describe, expect, it } from 'vitest';
import { vectorText } from '../../src/db/vector-text.js';
import { hashEmbedding } from '../../src/embedders/hashing.embedder.js';

describe('vectorText (pgvector text input)', () => {
  it('writes each component with eight decimals at most', () => {
    expect(vectorText([0.123456789123, -0.5, 0, 1, -1e-12, 3.000000004])).toBe('[0.12345679,-0.5,0,1,0,3]');
    expect(vectorText([])).toBe('[]');
  });

  it('keeps a unit vector within single precision of itself, in fewer characters', () => {
    const vector = hashEmbedding('The graph view shows your notes as a network of nodes and links.');
    const text = vectorText(vector);
    const parsed = text.slice(1, -1).split(',').map(Number);
    expect(parsed).toHaveLength(vector.length);
    for (let i = 0; i < vector.length; i++) expect(Math.abs(parsed[i] - vector[i])).toBeLessThanOrEqual(5e-9);
    expect(text.length).toBeLessThan(`[${vector.join(',')}]`.length * 0.75);
  });
});
