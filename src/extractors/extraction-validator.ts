// Turns whatever a backend answered into an ExtractionResult that can be written as is: parsed tolerantly,
// checked against the schema, names cleaned, types and predicates mapped onto the closed vocabularies,
// confidences clamped, and every evidence quote found in the chunk. Pure: no I/O, no clock, no randomness.
import { ChunkText, type QuoteMatchKind } from './evidence-matcher.js';
import { MAX_ENTITY_ALIASES, type ExtractedEntity, type ExtractedRelation, type ExtractionRequest, type ExtractionResult } from './extraction.types.js';
import { normaliseEntityType, normalisePredicate } from './vocabulary.js';

/** The answer could not be read as the expected JSON object (after one local repair attempt). */
export class MalformedExtractionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedExtractionError';
  }
}

/** Confidence multipliers, by how the evidence quote was found in the chunk (docs/extractors.md). */
export const EVIDENCE_FACTORS: Record<QuoteMatchKind | 'replaced', number> = {
  verbatim: 1,
  'ignoring-markup': 1,
  'case-insensitive': 0.9,
  // The quote is not in the chunk; the chunk's own sentence naming the item stands in for it.
  replaced: 0.5,
};
export const DEFAULT_CONFIDENCE = 0.5;
export const MAX_NAME_LENGTH = 120;
export const MAX_EVIDENCE_LENGTH = 1000;
export const DEFAULT_LIMITS = { entities: 100, relations: 200 };

export interface ValidationOptions {
  extractor: string;
  model: string;
  limits?: { entities: number; relations: number };
}

type Dropped = ExtractionResult['dropped'];

/**
 * Reads a model's text answer as JSON: strips `<think>` blocks, code fences and prose around the object,
 * and, if that is not enough, removes trailing commas. Throws MalformedExtractionError otherwise.
 */
export function parseModelJson(answer: string): unknown {
  const text = answer
    .replace(/^\uFEFF/, '')
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .trim();
  if (text === '') throw new MalformedExtractionError('the model answered with no text');
  const candidates = [text];
  const fenced = /```[a-zA-Z0-9_-]*[ \t]*\r?\n([\s\S]*?)```/.exec(text);
  if (fenced) candidates.push(fenced[1].trim());
  const object = outermostObject(text);
  if (object) candidates.push(object);
  for (const candidate of candidates) {
    const parsed = tryParse(candidate);
    if (parsed.ok) return parsed.value;
  }
  for (const candidate of candidates) {
    const parsed = tryParse(withoutTrailingCommas(candidate));
    if (parsed.ok) return parsed.value;
  }
  throw new MalformedExtractionError(`the model's answer is not a JSON object: ${excerpt(text, 160)}`);
}

/**
 * Validates and normalises a parsed answer against the request it answers. Throws MalformedExtractionError
 * when the answer is not an object with an `entities` and/or a `relations` array; a bad item never fails the
 * whole answer, it is dropped and listed in `dropped` with the reason.
 */
export function validateExtraction(raw: unknown, request: ExtractionRequest, options: ValidationOptions): ExtractionResult {
  if (!isObject(raw)) throw new MalformedExtractionError(`expected a JSON object with "entities" and "relations", got ${describe(raw)}`);
  const rawEntities = raw.entities ?? [];
  const rawRelations = raw.relations ?? [];
  if (raw.entities === undefined && raw.relations === undefined) {
    throw new MalformedExtractionError(`expected a JSON object with "entities" and "relations", got keys ${JSON.stringify(Object.keys(raw).slice(0, 8))}`);
  }
  if (!Array.isArray(rawEntities)) throw new MalformedExtractionError(`"entities" must be an array, got ${describe(rawEntities)}`);
  if (!Array.isArray(rawRelations)) throw new MalformedExtractionError(`"relations" must be an array, got ${describe(rawRelations)}`);

  const limits = options.limits ?? DEFAULT_LIMITS;
  const chunk = new ChunkText(request.chunkText);
  const dropped: Dropped = [];
  const known = new Map(request.knownEntities.map((e) => [nameKey(e.name), e]));

  // Entities, deduplicated by name: a name is one entity per chunk, whatever types the model tried.
  const entities = new Map<string, ExtractedEntity>();
  const aliases = new Map<string, string>(); // what the model called it → key of the entity kept
  rawEntities.forEach((item: unknown, index: number) => {
    const label = `entities[${index}]`;
    if (!isObject(item)) return dropped.push({ item: label, reason: `not an object (${describe(item)})` });
    const name = cleanName(item.name);
    if (name === null) return dropped.push({ item: label, reason: 'no name' });
    if (name.length > MAX_NAME_LENGTH) return dropped.push({ item: `entity "${excerpt(name, 40)}"`, reason: `name longer than ${MAX_NAME_LENGTH} characters` });
    const knownEntity = known.get(nameKey(name));
    // An approved entity keeps its curated type, so the mention links to it instead of proposing a twin.
    const type = knownEntity?.type ?? normaliseEntityType(item.type).type;
    const canonical = knownEntity?.name ?? name;
    const grounded = ground(chunk, evidenceOf(item), [name], confidenceOf(item.confidence));
    if (!grounded.ok) return dropped.push({ item: `entity "${name}"`, reason: grounded.reason });
    if (grounded.note) dropped.push({ item: `evidence of entity "${name}"`, reason: grounded.note });
    const key = nameKey(canonical);
    aliases.set(nameKey(name), key);
    const entity: ExtractedEntity = { name: canonical, type, confidence: grounded.confidence, evidence: grounded.evidence };
    const surfaces = stringsOf(item.surfaces).filter((surface) => nameKey(surface) !== nameKey(canonical));
    if (surfaces.length > 0) entity.surfaces = surfaces;
    const otherNames = aliasesOf(item.aliases, [canonical, name, ...surfaces]);
    if (otherNames.kept.length > 0) entity.aliases = otherNames.kept;
    if (otherNames.dropped > 0) dropped.push({ item: `aliases of entity "${name}"`, reason: `${otherNames.dropped} not kept (empty, too long, the name itself, a repeat, or more than ${MAX_ENTITY_ALIASES})` });
    const signals = stringsOf(item.signals);
    if (signals.length > 0) entity.signals = signals;
    const previous = entities.get(key);
    if (previous) {
      dropped.push({ item: `entity "${name}"`, reason: `duplicate of entity "${previous.name}"` });
      const better = entity.confidence > previous.confidence;
      const kept = better ? { ...entity, name: previous.name } : previous;
      const other = better ? previous : entity;
      // Both answers' other names stay (the kept one's first).
      const united = aliasesOf([...(kept.aliases ?? []), ...(other.aliases ?? [])], [kept.name, ...(kept.surfaces ?? [])]).kept;
      entities.set(key, united.length > 0 ? { ...kept, aliases: united } : kept);
      return;
    }
    if (entities.size >= limits.entities) return dropped.push({ item: `entity "${name}"`, reason: `more than ${limits.entities} entities in one chunk` });
    entities.set(key, entity);
  });

  const relations = new Map<string, ExtractedRelation>();
  rawRelations.forEach((item: unknown, index: number) => {
    const label = `relations[${index}]`;
    if (!isObject(item)) return dropped.push({ item: label, reason: `not an object (${describe(item)})` });
    const rawSource = cleanName(item.source);
    const rawTarget = cleanName(item.target);
    if (rawSource === null || rawTarget === null) return dropped.push({ item: label, reason: 'no source or no target' });
    const mapped = normalisePredicate(item.predicate);
    const [sourceName, targetName] = mapped.inverted ? [rawTarget, rawSource] : [rawSource, rawTarget];
    const described = `relation "${sourceName}" ${mapped.predicate} "${targetName}"`;
    const source = entities.get(aliases.get(nameKey(sourceName)) ?? nameKey(sourceName));
    const target = entities.get(aliases.get(nameKey(targetName)) ?? nameKey(targetName));
    if (!source) return dropped.push({ item: described, reason: `its source "${sourceName}" is not among the entities` });
    if (!target) return dropped.push({ item: described, reason: `its target "${targetName}" is not among the entities` });
    if (source === target) return dropped.push({ item: described, reason: 'source and target are the same entity' });
    const grounded = ground(chunk, evidenceOf(item), [source.name, target.name], confidenceOf(item.confidence), [sourceName, targetName]);
    if (!grounded.ok) return dropped.push({ item: described, reason: grounded.reason });
    if (grounded.note) dropped.push({ item: `evidence of ${described}`, reason: grounded.note });
    const relation: ExtractedRelation = {
      source: source.name,
      predicate: mapped.predicate,
      target: target.name,
      confidence: grounded.confidence,
      evidence: grounded.evidence,
    };
    const relationSignals = stringsOf(item.signals);
    if (relationSignals.length > 0) relation.signals = relationSignals;
    const key = `${nameKey(source.name)}\u0000${relation.predicate}\u0000${nameKey(target.name)}`;
    const previous = relations.get(key);
    if (previous) {
      dropped.push({ item: described, reason: 'duplicate relation' });
      if (relation.confidence > previous.confidence) relations.set(key, relation);
      return;
    }
    if (relations.size >= limits.relations) return dropped.push({ item: described, reason: `more than ${limits.relations} relations in one chunk` });
    relations.set(key, relation);
  });

  return { entities: [...entities.values()], relations: [...relations.values()], extractor: options.extractor, model: options.model, dropped };
}

type Grounding = { ok: true; evidence: string; confidence: number; note?: string } | { ok: false; reason: string };

/** Finds the quote in the chunk; failing that, the chunk's sentence naming the item stands in at half confidence. */
function ground(chunk: ChunkText, quote: string, names: string[], confidence: number, alternativeNames?: string[]): Grounding {
  const match = quote === '' ? null : chunk.find(quote);
  if (match && match.text.length <= MAX_EVIDENCE_LENGTH) {
    return { ok: true, evidence: match.text, confidence: round(confidence * EVIDENCE_FACTORS[match.kind]) };
  }
  const problem =
    quote === '' ? 'no evidence quote' : match ? `evidence quote longer than ${MAX_EVIDENCE_LENGTH} characters` : `evidence quote "${excerpt(quote, 80)}" is not in the chunk`;
  const sentence = chunk.sentenceMentioning(names) ?? (alternativeNames ? chunk.sentenceMentioning(alternativeNames) : null);
  if (sentence !== null && sentence.length <= MAX_EVIDENCE_LENGTH) {
    return {
      ok: true,
      evidence: sentence,
      confidence: round(confidence * EVIDENCE_FACTORS.replaced),
      note: `${problem}; replaced by the chunk's sentence that names it, confidence ×${EVIDENCE_FACTORS.replaced}`,
    };
  }
  return { ok: false, reason: `${problem}, and no sentence of the chunk names ${names.length > 1 ? 'both ends' : 'it'}` };
}

/** The key two names are the same entity by: NFKC, case-folded, whitespace collapsed. */
export function nameKey(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** A display name: wikilink brackets, Markdown emphasis, quotes and trailing punctuation removed. */
export function cleanName(value: unknown): string | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  let name = String(value).normalize('NFKC').replace(/\s+/g, ' ').trim();
  for (let previous = ''; previous !== name; ) {
    previous = name;
    name = name
      .replace(/^\[\[([^\]|]*)(?:\|[^\]]*)?\]\]$/, '$1')
      .replace(/^(\*\*|__|\*|_|`|"|')(.+)\1$/, '$2')
      .replace(/^\u201C(.+)\u201D$|^\u2018(.+)\u2019$/, '$1$2')
      .replace(/[.,;:]+$/, '')
      .trim();
  }
  return name === '' ? null : name;
}

/**
 * Confidence in [0, 1]: numbers and numeric strings, `85%`, high/medium/low; whole numbers from 10 to 100 are
 * read as percentages (models on a 0–100 scale); anything else above 1 is clamped to 1; unreadable is 0.5.
 */
export function confidenceOf(value: unknown): number {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') {
    const word = { high: 0.9, medium: 0.6, low: 0.3 }[value.trim().toLowerCase()];
    n = word ?? Number.parseFloat(value.replace('%', ''));
    if (word === undefined && value.includes('%')) n /= 100;
  } else return DEFAULT_CONFIDENCE;
  if (!Number.isFinite(n)) return DEFAULT_CONFIDENCE;
  if (Number.isInteger(n) && n >= 10 && n <= 100) n /= 100;
  return round(Math.min(1, Math.max(0, n)));
}

/** An entity's other names: strings with a letter, cleaned like names, none of its own spellings, no repeat, at most MAX_ENTITY_ALIASES. */
function aliasesOf(value: unknown, own: string[]): { kept: string[]; dropped: number } {
  if (!Array.isArray(value)) return { kept: [], dropped: 0 };
  const seen = new Set(own.map(nameKey));
  const kept: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string') continue;
    const alias = cleanName(item);
    // eslint-disable-next-line no-control-regex -- a control character (NUL above all) is never part of a name
    if (alias === null || alias.length > MAX_NAME_LENGTH || !/\p{L}/u.test(alias) || /[\u0000-\u001f\u007f]/.test(alias)) continue;
    if (seen.has(nameKey(alias)) || kept.length >= MAX_ENTITY_ALIASES) continue;
    seen.add(nameKey(alias));
    kept.push(alias);
  }
  return { kept, dropped: value.length - kept.length };
}

/** Short strings of an optional array (surface forms, signals); anything else is ignored. */
function stringsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return [...new Set(value.filter((v): v is string => typeof v === 'string' && v.trim() !== '' && v.length <= MAX_NAME_LENGTH).map((v) => v.trim()))].slice(0, 20);
}

function evidenceOf(item: Record<string, unknown>): string {
  const value = item.evidence ?? item.quote ?? item.evidence_quote;
  return typeof value === 'string' ? value.trim() : '';
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${excerpt(JSON.stringify(value) ?? String(value), 40)}`;
}

function excerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The first balanced `{…}` in the text (string-aware), or null when it never closes. */
function outermostObject(text: string): string | null {
  const start = text.indexOf('{');
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

/** `[1, 2,]` → `[1, 2]`, outside strings only. */
function withoutTrailingCommas(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    if (ch === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j])) j++;
      if (text[j] === '}' || text[j] === ']') continue;
    }
    out += ch;
  }
  return out;
}
