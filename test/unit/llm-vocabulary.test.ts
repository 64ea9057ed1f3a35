import { describe, expect, it } from 'vitest';
import { ENTITY_TYPES, PREDICATES } from '../../src/extractors/extraction.types.js';
import { normaliseEntityType, normalisePredicate, vocabularyKey } from '../../src/extractors/vocabulary.js';

describe('the closed vocabularies', () => {
  it('have the issue\'s entity types and at least ten predicates, related_to among them', () => {
    expect(ENTITY_TYPES).toEqual(expect.arrayContaining(['person', 'organization', 'place', 'event', 'product', 'technology', 'concept', 'project', 'other']));
    expect(PREDICATES.length).toBeGreaterThanOrEqual(10);
    expect(PREDICATES).toEqual(
      expect.arrayContaining(['related_to', 'part_of', 'is_a', 'uses', 'requires', 'enables', 'implements', 'extends', 'replaces', 'alternative_to']),
    );
    expect(PREDICATES.every((p) => /^[a-z]+(_[a-z]+)*$/.test(p))).toBe(true);
  });

  it.each([
    ['Programming Language', 'programming_language'],
    ['programming-language', 'programming_language'],
    ['ProgrammingLanguage', 'programming_language'],
    ['  is part of ', 'is_part_of'],
    ['Depends-On', 'depends_on'],
    ['built/with', 'built_with'],
  ])('vocabularyKey(%o) is %o', (value, key) => {
    expect(vocabularyKey(value)).toBe(key);
  });
});

describe('entity type aliases', () => {
  it.each([
    ['person', 'person'],
    ['Person', 'person'],
    ['framework', 'technology'],
    ['Frameworks', 'technology'],
    ['programming language', 'technology'],
    ['library', 'technology'],
    ['libraries', 'technology'],
    ['company', 'organization'],
    ['Organisation', 'organization'],
    ['city', 'place'],
    ['GPE', 'place'],
    ['conference', 'event'],
    ['app', 'product'],
    ['VS Code extension', 'product'],
    ['open source project', 'project'],
    ['ui widget', 'other'],
    ['extension', 'product'],
    ['idea', 'concept'],
    ['repository', 'project'],
    ['article', 'document'],
    ['documents', 'document'],
  ])('%o → %s', (value, type) => {
    expect(normaliseEntityType(value).type).toBe(type);
  });

  it.each([['spaceship'], [''], [42], [null], [undefined], [{ type: 'person' }]])('sends %o to other, flagged unknown', (value) => {
    expect(normaliseEntityType(value)).toEqual({ type: 'other', known: false });
  });
});

describe('predicate aliases', () => {
  it.each([
    ['related_to', 'related_to', false],
    ['Related To', 'related_to', false],
    ['depends_on', 'requires', false],
    ['dependsOn', 'requires', false],
    ['is_part_of', 'part_of', false],
    ['part-of', 'part_of', false],
    ['instance of', 'is_a', false],
    ['built with', 'uses', false],
    ['supersedes', 'replaces', false],
    ['competes with', 'alternative_to', false],
    ['developed_by', 'created_by', false],
    ['was developed by', 'created_by', false],
    ['is located in', 'located_in', false],
    ['works for', 'member_of', false],
    ['documents', 'describes', false],
    // Said the other way round: the validator swaps source and target.
    ['contains', 'part_of', true],
    ['has_part', 'part_of', true],
    ['used by', 'uses', true],
    ['is used by', 'uses', true],
    ['required_by', 'requires', true],
    ['created', 'created_by', true],
    ['replaced by', 'replaces', true],
    ['implemented_by', 'implements', true],
  ])('%o → %s (inverted: %s)', (value, predicate, inverted) => {
    expect(normalisePredicate(value)).toEqual({ predicate, inverted, known: true });
  });

  it.each([['teleports_to'], [''], [7], [null], [undefined]])('sends %o to related_to, flagged unknown', (value) => {
    expect(normalisePredicate(value)).toEqual({ predicate: 'related_to', inverted: false, known: false });
  });
});
