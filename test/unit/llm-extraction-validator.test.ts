import { describe, expect, it } from 'vitest';
import {
  cleanName,
  confidenceOf,
  MalformedExtractionError,
  parseModelJson,
  validateExtraction,
} from '../../src/extractors/extraction-validator.js';
import type { ExtractionRequest } from '../../src/extractors/extraction.types.js';

const CHUNK = [
  '# Backlinks',
  '',
  'The **Backlinks panel** lists every note that links to the current one. It is part of [[Foam]],',
  'which runs inside [Visual Studio Code](https://code.visualstudio.com/).',
  '',
  '- Jane Doe wrote the “first version” in 2020.',
].join('\n');

function request(overrides: Partial<ExtractionRequest> = {}): ExtractionRequest {
  return { pageTitle: 'Backlinks', headingPath: ['Backlinks'], chunkText: CHUNK, knownEntities: [], linkTargets: ['Foam'], ...overrides };
}

const OPTIONS = { extractor: 'test', model: 'test-model' };

function validate(raw: unknown, overrides: Partial<ExtractionRequest> = {}) {
  return validateExtraction(raw, request(overrides), OPTIONS);
}

function entity(name: string, evidence: string, extra: Record<string, unknown> = {}) {
  return { name, type: 'concept', confidence: 0.8, evidence, ...extra };
}

describe('parseModelJson: tolerant parsing', () => {
  const expected = { entities: [], relations: [] };

  it.each([
    ['plain JSON', '{"entities": [], "relations": []}'],
    ['a code fence', '```json\n{"entities": [], "relations": []}\n```'],
    ['a fence without a language', '```\n{"entities": [], "relations": []}\n```'],
    ['leading prose', 'Sure! Here is what I found:\n{"entities": [], "relations": []}'],
    ['leading and trailing prose', 'Result: {"entities": [], "relations": []} Hope this helps.'],
    ['trailing commas', '{"entities": [], "relations": [],}'],
    ['a think block first', '<think>The user wants {JSON}.</think>\n{"entities": [], "relations": []}'],
    ['a byte-order mark', '\uFEFF{"entities": [], "relations": []}'],
  ])('reads %s', (_label, text) => {
    expect(parseModelJson(text)).toEqual(expected);
  });

  it('keeps commas, braces and fences that are inside strings', () => {
    expect(parseModelJson('{"entities": [{"name": "a,]}", "evidence": "x ``` y"}], "relations": []}')).toEqual({
      entities: [{ name: 'a,]}', evidence: 'x ``` y' }],
      relations: [],
    });
  });

  it.each([
    ['empty text', ''],
    ['only whitespace', '  \n '],
    ['prose only', 'I could not find any entities.'],
    ['a truncated object', '{"entities": [{"name": "Foam", "type": "prod'],
    ['single quotes', "{'entities': []}"],
  ])('refuses %s with a MalformedExtractionError', (_label, text) => {
    expect(() => parseModelJson(text)).toThrow(MalformedExtractionError);
  });

  it('quotes the start of the bad answer in the message', () => {
    expect(() => parseModelJson('no json here')).toThrow(/not a JSON object: no json here/);
  });
});

describe('validateExtraction: shape', () => {
  it.each([
    ['null', null],
    ['an array', []],
    ['a string', 'entities'],
    ['an object without entities or relations', { results: [] }],
    ['entities that are not an array', { entities: { name: 'Foam' } }],
    ['relations that are not an array', { entities: [], relations: 'none' }],
  ])('refuses %s as malformed', (_label, raw) => {
    expect(() => validate(raw)).toThrow(MalformedExtractionError);
  });

  it('accepts a missing relations list as empty', () => {
    const result = validate({ entities: [entity('Foam', 'It is part of [[Foam]]')] });
    expect(result.relations).toEqual([]);
    expect(result.entities).toHaveLength(1);
  });

  it('names the extractor and the model', () => {
    expect(validate({ entities: [], relations: [] })).toEqual({ entities: [], relations: [], extractor: 'test', model: 'test-model', dropped: [] });
  });

  it('drops bad items one by one, saying why, and keeps the rest', () => {
    const result = validate({
      entities: ['Foam', null, { type: 'concept' }, { name: '   ' }, { name: 'x'.repeat(121), evidence: 'Backlinks' }, entity('Foam', 'part of [[Foam]]')],
      relations: [42, { source: 'Foam' }],
    });
    expect(result.entities.map((e) => e.name)).toEqual(['Foam']);
    expect(result.dropped).toEqual([
      { item: 'entities[0]', reason: 'not an object (string "Foam")' },
      { item: 'entities[1]', reason: 'not an object (null)' },
      { item: 'entities[2]', reason: 'no name' },
      { item: 'entities[3]', reason: 'no name' },
      { item: expect.stringMatching(/^entity "x+…"$/), reason: 'name longer than 120 characters' },
      { item: 'relations[0]', reason: 'not an object (number 42)' },
      { item: 'relations[1]', reason: 'no source or no target' },
    ]);
  });
});

describe('validateExtraction: types, predicates, names and confidence', () => {
  it('maps type aliases and sends unknown types to other', () => {
    const result = validate({
      entities: [
        entity('Foam', 'part of [[Foam]]', { type: 'Framework' }),
        entity('Visual Studio Code', 'runs inside [Visual Studio Code]', { type: 'software product' }),
        entity('Jane Doe', 'Jane Doe wrote', { type: 'PERSON' }),
        entity('Backlinks panel', 'The **Backlinks panel** lists', { type: 'ui widget' }),
        entity('first version', 'first version', { type: undefined }),
      ],
    });
    expect(result.entities.map((e) => [e.name, e.type])).toEqual([
      ['Foam', 'technology'],
      ['Visual Studio Code', 'product'],
      ['Jane Doe', 'person'],
      ['Backlinks panel', 'other'],
      ['first version', 'other'],
    ]);
  });

  it('maps predicate aliases, turns inverse predicates round, and sends unknown predicates to related_to', () => {
    const result = validate({
      entities: [entity('Foam', 'part of [[Foam]]'), entity('Backlinks panel', 'Backlinks panel'), entity('Visual Studio Code', 'Visual Studio Code')],
      relations: [
        { source: 'Backlinks panel', predicate: 'is_part_of', target: 'Foam', confidence: 0.9, evidence: 'It is part of [[Foam]]' },
        { source: 'Foam', predicate: 'Depends On', target: 'Visual Studio Code', confidence: 0.9, evidence: 'which runs inside [Visual Studio Code]' },
        { source: 'Foam', predicate: 'contains', target: 'Backlinks panel', confidence: 0.7, evidence: 'It is part of [[Foam]]' },
        { source: 'Foam', predicate: 'dances_with', target: 'Backlinks panel', confidence: 0.5, evidence: 'Backlinks panel' },
      ],
    });
    expect(result.relations.map((r) => [r.source, r.predicate, r.target, r.confidence])).toEqual([
      ['Backlinks panel', 'part_of', 'Foam', 0.9],
      ['Foam', 'requires', 'Visual Studio Code', 0.9],
      ['Foam', 'related_to', 'Backlinks panel', 0.5],
    ]);
    // `Foam contains Backlinks panel` is `Backlinks panel part_of Foam` again: merged, the higher confidence kept.
    expect(result.dropped).toEqual([{ item: 'relation "Backlinks panel" part_of "Foam"', reason: 'duplicate relation' }]);
  });

  it('clamps confidence into [0, 1] and reads percentages and words', () => {
    const result = validate({
      entities: [
        entity('Foam', 'part of [[Foam]]', { confidence: 7.5 }),
        entity('Backlinks panel', 'Backlinks panel', { confidence: -0.2 }),
        entity('Jane Doe', 'Jane Doe', { confidence: '85%' }),
        entity('Visual Studio Code', 'Visual Studio Code', { confidence: 'high' }),
        entity('first version', 'first version', { confidence: 'sure' }),
      ],
    });
    expect(result.entities.map((e) => e.confidence)).toEqual([1, 0, 0.85, 0.9, 0.5]);
  });

  it.each([
    [0.42, 0.42],
    [1, 1],
    [90, 0.9],
    [1.7, 1],
    [3, 1],
    ['0.3', 0.3],
    ['75', 0.75],
    [Number.NaN, 0.5],
    [null, 0.5],
    [undefined, 0.5],
    ['LOW', 0.3],
  ])('confidenceOf(%o) is %d', (value, expected) => {
    expect(confidenceOf(value)).toBe(expected);
  });

  it.each([
    ['[[Foam]]', 'Foam'],
    ['[[Foam|the editor]]', 'Foam'],
    ['**Backlinks**', 'Backlinks'],
    ['"Jane Doe"', 'Jane Doe'],
    ['`git`', 'git'],
    ['  Visual   Studio\nCode. ', 'Visual Studio Code'],
    ['Ｆｏａｍ', 'Foam'],
    [2020, '2020'],
    ['', null],
    [['Foam'], null],
  ])('cleanName(%o) is %o', (value, expected) => {
    expect(cleanName(value)).toBe(expected);
  });

  it('merges entities that differ only in case or markup, keeping the best confidence', () => {
    const result = validate({
      entities: [
        entity('Foam', 'part of [[Foam]]', { confidence: 0.6 }),
        entity('foam', 'It is part of [[Foam]]', { confidence: 0.9, type: 'product' }),
        entity('[[Foam]]', 'part of', { confidence: 0.7 }),
      ],
    });
    expect(result.entities).toEqual([{ name: 'Foam', type: 'product', confidence: 0.9, evidence: 'It is part of [[Foam]]' }]);
    expect(result.dropped.map((d) => d.reason)).toEqual(['duplicate of entity "Foam"', 'duplicate of entity "Foam"']);
  });

  it('reuses the spelling and type of an approved entity', () => {
    const result = validate(
      { entities: [entity('visual studio code', 'Visual Studio Code', { type: 'technology' })] },
      { knownEntities: [{ name: 'Visual Studio Code', type: 'product' }] },
    );
    expect(result.entities).toEqual([{ name: 'Visual Studio Code', type: 'product', confidence: 0.8, evidence: 'Visual Studio Code' }]);
  });

  it('resolves relation endpoints by the name the model used, after the entity was renamed to a known one', () => {
    const result = validate(
      {
        entities: [entity('vscode', 'Visual Studio Code'), entity('Foam', '[[Foam]]')],
        relations: [{ source: 'Foam', predicate: 'uses', target: 'VSCODE', confidence: 0.8, evidence: 'which runs inside [Visual Studio Code]' }],
      },
      { knownEntities: [{ name: 'VSCode', type: 'product' }] },
    );
    expect(result.relations).toEqual([
      { source: 'Foam', predicate: 'uses', target: 'VSCode', confidence: 0.8, evidence: 'which runs inside [Visual Studio Code]' },
    ]);
  });
});

describe('validateExtraction: relations need both ends among the entities', () => {
  it('drops a relation to a name that is not an entity, and a relation to itself', () => {
    const result = validate({
      entities: [entity('Foam', 'part of [[Foam]]')],
      relations: [
        { source: 'Foam', predicate: 'uses', target: 'Visual Studio Code', confidence: 0.9, evidence: 'which runs inside [Visual Studio Code]' },
        { source: 'Obsidian', predicate: 'alternative_to', target: 'Foam', confidence: 0.9, evidence: 'part of [[Foam]]' },
        { source: 'Foam', predicate: 'related_to', target: 'foam', confidence: 0.9, evidence: 'part of [[Foam]]' },
      ],
    });
    expect(result.relations).toEqual([]);
    expect(result.dropped).toEqual([
      { item: 'relation "Foam" uses "Visual Studio Code"', reason: 'its target "Visual Studio Code" is not among the entities' },
      { item: 'relation "Obsidian" alternative_to "Foam"', reason: 'its source "Obsidian" is not among the entities' },
      { item: 'relation "Foam" related_to "foam"', reason: 'source and target are the same entity' },
    ]);
  });

  it('drops a relation whose endpoint entity was itself dropped', () => {
    const result = validate({
      entities: [entity('Foam', 'part of [[Foam]]'), entity('Obsidian', 'Obsidian is great')],
      relations: [{ source: 'Foam', predicate: 'alternative_to', target: 'Obsidian', confidence: 0.9, evidence: 'part of [[Foam]]' }],
    });
    expect(result.entities.map((e) => e.name)).toEqual(['Foam']);
    expect(result.relations).toEqual([]);
    expect(result.dropped.map((d) => d.item)).toEqual(['entity "Obsidian"', 'relation "Foam" alternative_to "Obsidian"']);
  });
});

describe('validateExtraction: evidence quotes are checked against the chunk', () => {
  it('accepts a verbatim quote and returns it as the chunk spells it', () => {
    const result = validate({ entities: [entity('Jane Doe', 'Jane Doe wrote the “first version” in 2020.')] });
    expect(result.entities[0]).toMatchObject({ confidence: 0.8, evidence: 'Jane Doe wrote the “first version” in 2020.' });
  });

  it('forgives NFKC forms, typographic quotes and whitespace, and quotes the chunk, not the model', () => {
    const result = validate({ entities: [entity('Jane Doe', 'Jane   Doe wrote the "first version"\n in ２０２０')] });
    expect(result.entities[0]).toMatchObject({ confidence: 0.8, evidence: 'Jane Doe wrote the “first version” in 2020' });
    expect(result.dropped).toEqual([]);
  });

  it('forgives Markdown markup the model left out, widening the quote to whole markup', () => {
    const result = validate({
      entities: [
        entity('Backlinks panel', 'The Backlinks panel lists every note'),
        entity('Visual Studio Code', 'which runs inside Visual Studio Code.'),
        entity('Foam', 'It is part of Foam'),
      ],
    });
    expect(result.entities.map((e) => [e.evidence, e.confidence])).toEqual([
      ['The **Backlinks panel** lists every note', 0.8],
      ['which runs inside [Visual Studio Code](https://code.visualstudio.com/).', 0.8],
      ['It is part of [[Foam]]', 0.8],
    ]);
  });

  it('accepts a quote that only matches case-insensitively, with a penalty (×0.9)', () => {
    const result = validate({ entities: [entity('Backlinks panel', 'the backlinks panel LISTS every note')] });
    expect(result.entities[0]).toMatchObject({ confidence: 0.72, evidence: 'The **Backlinks panel** lists every note' });
  });

  it('replaces an invented quote with the sentence naming the entity, at half confidence, and says so', () => {
    const result = validate({ entities: [entity('Jane Doe', 'Jane Doe is the founder of Foam')] });
    expect(result.entities).toEqual([{ name: 'Jane Doe', type: 'concept', confidence: 0.4, evidence: '- Jane Doe wrote the “first version” in 2020.' }]);
    expect(result.dropped).toEqual([
      {
        item: 'evidence of entity "Jane Doe"',
        reason: 'evidence quote "Jane Doe is the founder of Foam" is not in the chunk; replaced by the chunk\'s sentence that names it, confidence ×0.5',
      },
    ]);
  });

  it('treats a missing or trivially short quote as unverifiable', () => {
    const result = validate({ entities: [entity('Foam', ''), entity('Backlinks panel', 'a'), entity('Obsidian', '')] });
    expect(result.entities.map((e) => [e.name, e.confidence])).toEqual([
      ['Foam', 0.4],
      ['Backlinks panel', 0.4],
    ]);
    expect(result.dropped.map((d) => d.reason)).toEqual([
      expect.stringMatching(/^no evidence quote; replaced/),
      expect.stringMatching(/^evidence quote "a" is not in the chunk; replaced/),
      'no evidence quote, and no sentence of the chunk names it',
    ]);
  });

  it('drops an entity whose quote and name are both absent from the chunk', () => {
    const result = validate({ entities: [entity('Obsidian', 'Obsidian is an alternative')] });
    expect(result.entities).toEqual([]);
    expect(result.dropped).toEqual([
      { item: 'entity "Obsidian"', reason: 'evidence quote "Obsidian is an alternative" is not in the chunk, and no sentence of the chunk names it' },
    ]);
  });

  it('replaces a relation quote with a sentence naming both ends, or drops the relation', () => {
    const result = validate({
      entities: [entity('Foam', '[[Foam]]'), entity('Visual Studio Code', 'Visual Studio Code'), entity('Jane Doe', 'Jane Doe')],
      relations: [
        { source: 'Foam', predicate: 'uses', target: 'Visual Studio Code', confidence: 0.8, evidence: 'Foam runs on VS Code' },
        { source: 'Foam', predicate: 'created_by', target: 'Jane Doe', confidence: 0.8, evidence: 'Jane Doe created Foam' },
      ],
    });
    // `It is part of [[Foam]],\nwhich runs inside …` is one sentence that names both.
    expect(result.relations).toEqual([
      {
        source: 'Foam',
        predicate: 'uses',
        target: 'Visual Studio Code',
        confidence: 0.4,
        evidence: 'It is part of [[Foam]],\nwhich runs inside [Visual Studio Code](https://code.visualstudio.com/).',
      },
    ]);
    expect(result.dropped.map((d) => d.item)).toEqual(['evidence of relation "Foam" uses "Visual Studio Code"', 'relation "Foam" created_by "Jane Doe"']);
  });

  it('checks link destinations and wikilink targets are not what a quote is matched on', () => {
    const result = validate({ entities: [entity('Visual Studio Code', 'code.visualstudio.com')] });
    // The URL is in the raw chunk: a verbatim match is still a match (nothing is hidden in the strict comparison).
    expect(result.entities[0].evidence).toBe('code.visualstudio.com');
  });

  it('caps the number of entities and relations per chunk', () => {
    const many = Array.from({ length: 5 }, (_, i) => entity(`Backlinks ${i}`, 'Backlinks panel'));
    const result = validateExtraction({ entities: many }, request(), { ...OPTIONS, limits: { entities: 3, relations: 1 } });
    expect(result.entities).toHaveLength(3);
    expect(result.dropped.filter((d) => d.reason === 'more than 3 entities in one chunk')).toHaveLength(2);
  });

  it('is deterministic', () => {
    const raw = {
      entities: [entity('Foam', 'part of [[Foam]]'), entity('Jane Doe', 'invented')],
      relations: [{ source: 'Jane Doe', predicate: 'created', target: 'Foam', confidence: 0.8, evidence: 'x' }],
    };
    expect(validate(raw)).toEqual(validate(structuredClone(raw)));
  });
});
