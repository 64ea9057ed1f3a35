// What Ollama and Anthropic are asked, and the shape they must answer in. One prompt for both backends, so that
// switching backend changes the model, not the task.
import { ENTITY_TYPES, MAX_ENTITY_ALIASES, PREDICATES, type ExtractionRequest } from './extraction.types.js';

/** Known (approved) entity names sent with each chunk; the nearest ones come first, the rest are cut. */
export const MAX_KNOWN_ENTITIES_IN_PROMPT = 150;
export const MAX_LINK_TARGETS_IN_PROMPT = 100;

/** The JSON schema of an answer: Ollama's `format`, Anthropic's tool `input_schema`. */
export const EXTRACTION_JSON_SCHEMA = {
  type: 'object',
  properties: {
    entities: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The name as the text spells it, or the known entity name it refers to.' },
          type: { type: 'string', enum: [...ENTITY_TYPES] },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
          evidence: { type: 'string', description: 'A verbatim quote from the chunk (one sentence or less) that mentions it.' },
          aliases: {
            type: 'array',
            items: { type: 'string' },
            maxItems: MAX_ENTITY_ALIASES,
            description: 'Other names readers know it by: abbreviations, synonyms, what other tools or communities call it. May be empty.',
          },
        },
        required: ['name', 'type', 'confidence', 'evidence'],
      },
    },
    relations: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          source: { type: 'string', description: 'The name of an entity in "entities".' },
          predicate: { type: 'string', enum: [...PREDICATES] },
          target: { type: 'string', description: 'The name of an entity in "entities".' },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
          evidence: { type: 'string', description: 'A verbatim quote from the chunk that states the relation.' },
        },
        required: ['source', 'predicate', 'target', 'confidence', 'evidence'],
      },
    },
  },
  required: ['entities', 'relations'],
} as const;

export const EXTRACTION_TOOL_NAME = 'record_knowledge';
export const EXTRACTION_TOOL_DESCRIPTION =
  'Record the entities and the relations between them that the chunk of wiki text states, each with a verbatim evidence quote.';

export const EXTRACTION_SYSTEM_PROMPT = [
  'You extract a knowledge graph from one chunk of a wiki page. A human reviews everything you propose, so be precise rather than exhaustive.',
  '',
  'Rules:',
  `- Entities are named things the chunk talks about. Types: ${ENTITY_TYPES.join(', ')}. Use "other" when none fits.`,
  `- Relations connect two of your entities, source → target, with one predicate from this closed list: ${PREDICATES.join(', ')}.`,
  '  Read "A part_of B" as "A is part of B", "A created_by B" as "A was created by B". Choose the predicate the sentence states:',
  '  "A is a/kind of B" is_a; "A is part of / a setting in / a panel of B", "B contains A" part_of; "A requires/needs B" requires;',
  '  "A lets you / allows B" enables; "A uses / is built on B" uses; "A replaces B" replaces; "A is an alternative to / instead of B" alternative_to.',
  '  Use related_to only when the chunk links the two and no other predicate fits; two names in one list or table row are not a relation.',
  '  The evidence of a relation is the sentence that states it.',
  '- Not entities: file names and attachments (images, PDFs, `x.png`), generic words used as ordinary words, fragments of a longer name',
  '  (prefer the whole name, "Share Sheet" not "Sheet"), and page titles that name a task ("Manage vaults", "How to …").',
  '- Only state what the chunk itself says. Do not add outside knowledge, except in "aliases".',
  `- "aliases" (optional, at most ${MAX_ENTITY_ALIASES}): other names a reader might search for the entity by — an abbreviation ("2FA"),`,
  '  a synonym, the word other tools or communities use ("transclusion" for embedding one note in another). Leave it out when none is',
  '  common; never a description, a translation or a variant spelling of the name. An admin reviews them; approved, search finds the entity by them.',
  '- Every "evidence" must be a verbatim quote copied character for character from the chunk: no paraphrase, no ellipsis, at most one sentence.',
  '  An item whose quote is not in the chunk is discarded.',
  '- When a known entity fits, reuse its name exactly as listed instead of a variant spelling.',
  '- Every relation\'s source and target must also appear in "entities".',
  '- confidence is between 0 and 1: how clearly the chunk states it (0.9 explicit, 0.6 implied, below 0.5 a guess).',
  '- Answer with the JSON object only.',
].join('\n');

/** The user message: page title, heading path, known entities, link targets, then the chunk. */
export function extractionUserPrompt(request: ExtractionRequest): string {
  const known = request.knownEntities.slice(0, MAX_KNOWN_ENTITIES_IN_PROMPT);
  const links = request.linkTargets.slice(0, MAX_LINK_TARGETS_IN_PROMPT);
  const lines = [
    `Page title: ${oneLine(request.pageTitle)}`,
    `Section: ${request.headingPath.length > 0 ? request.headingPath.map(oneLine).join(' › ') : '(top of the page)'}`,
    '',
    'Known entities (reuse these names when they fit):',
    ...(known.length > 0 ? known.map((e) => `- ${oneLine(e.name)} (${e.type})`) : ['(none yet)']),
    '',
    'Pages this chunk links to:',
    ...(links.length > 0 ? links.map((t) => `- ${oneLine(t)}`) : ['(none)']),
    '',
    'Chunk:',
    '<chunk>',
    request.chunkText,
    '</chunk>',
  ];
  return lines.join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
