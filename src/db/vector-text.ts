/**
 * A vector as pgvector's text input, `[0.01234567,-0.5,…]`. pgvector stores single-precision floats (about seven
 * significant digits), so each component is written with eight decimals at most instead of JavaScript's seventeen
 * digits: half the bytes to send and to parse, and the same stored vector for any unit-length embedding.
 */
export function vectorText(vector: readonly number[]): string {
  let text = '[';
  for (let i = 0; i < vector.length; i++) {
    if (i > 0) text += ',';
    text += Math.round(vector[i] * 1e8) / 1e8;
  }
  return `${text}]`;
}
