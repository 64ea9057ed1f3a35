/**
 * Query understanding, as pure functions: recognising in a query the names of pages (titles, frontmatter aliases)
 * and of approved entities (names, aliases, the names of entities merged into them). A name matches whatever its
 * case, diacritics, plural and punctuation: "Two-Factor Authentications" names "two factor authentication", and
 * "plugins/backlinks" names the alias `Plugins/Backlinks`.
 */

/** What a name leads to: a page (by its title or an alias) or an approved entity. */
export interface NameTarget {
  kind: 'page' | 'entity';
  id: string;
  /** The page's title, or the entity's name. */
  name: string;
}

/** One thing with its names: a page (title first, then aliases) or an entity (name, aliases, merged names). */
export interface NamedThing extends NameTarget {
  names: string[];
  /** For an entity: its type. */
  type?: string;
}

export interface Recognition {
  target: NameTarget;
  /** The query's words that named it, as the reader typed them. */
  text: string;
  /** Which of its names was matched. */
  matchedName: string;
  /** The share of the query's content words the match covers (1: the query is exactly that name). */
  coverage: number;
  /** Word positions in the query, end exclusive. */
  start: number;
  end: number;
}

const STOPWORDS = new Set(
  'a about an and are as at be by can could do does for from get had has have how i if in into is it its me my no not of on or our should so than that the their them then there these they this to up us was we what when where which who why will with would you your'.split(' '),
);
/** The longest name, in words, looked for in a query. */
export const MAX_NAME_WORDS = 8;

/** "Authentications" → "authentication", "libraries" → "library", "classes" → "class": one form for singular and plural. */
export function singular(word: string): string {
  if (word.length <= 3 || !/[a-z]$/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(sses|shes|ches|xes|zzes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** The words of a name or query as compared: no diacritics, lower case, singular; punctuation separates words. */
export function nameWords(text: string): { word: string; raw: string }[] {
  const out: { word: string; raw: string }[] = [];
  for (const match of text.normalize('NFKC').matchAll(/[\p{L}\p{N}]+/gu)) {
    const plain = match[0].normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
    if (plain) out.push({ word: singular(plain), raw: match[0] });
  }
  return out;
}

/** The keys a name is found by: its words with spaces, and (several words) run together ("two-factor" = "twofactor"). */
export function nameKeys(text: string): string[] {
  const words = nameWords(text).map((w) => w.word);
  if (words.length === 0 || words.length > MAX_NAME_WORDS) return [];
  // A name that is one stop word, or one character, would match nearly every query.
  if (words.length === 1 && (STOPWORDS.has(words[0]) || words[0].length < 2)) return [];
  const keys = [words.join(' ')];
  if (words.length > 1) keys.push(words.join(''));
  return keys;
}

/** Names to targets, built once per change of the pages' titles and aliases or of the approved graph. */
export class NameDictionary {
  private readonly byKey = new Map<string, { target: NameTarget; name: string }[]>();
  private readonly things = new Map<string, NamedThing>();
  readonly size: number;

  constructor(things: readonly NamedThing[]) {
    for (const thing of things) {
      this.things.set(`${thing.kind}:${thing.id}`, thing);
      const target: NameTarget = { kind: thing.kind, id: thing.id, name: thing.name };
      for (const name of new Set(thing.names)) {
        for (const key of nameKeys(name)) {
          let list = this.byKey.get(key);
          if (!list) this.byKey.set(key, (list = []));
          if (!list.some((e) => e.target.kind === target.kind && e.target.id === target.id)) list.push({ target, name });
        }
      }
    }
    this.size = things.length;
  }

  /** A page's or entity's names (title or name first). */
  thing(target: NameTarget): NamedThing | undefined {
    return this.things.get(`${target.kind}:${target.id}`);
  }

  /** The targets exactly named by this text (all its words), e.g. an entity's alias naming a page. */
  named(text: string): { target: NameTarget; name: string }[] {
    const seen = new Set<string>();
    return nameKeys(text).flatMap((key) => this.byKey.get(key) ?? []).filter((e) => {
      const id = `${e.target.kind}:${e.target.id}`;
      return !seen.has(id) && seen.add(id) !== undefined;
    });
  }

  /**
   * Every name in the query: each run of 1 to MAX_NAME_WORDS words, as spaced words and run together. A match
   * inside a longer match of the same target is dropped; coverage counts the query's content words (no stop words).
   */
  recognise(query: string): Recognition[] {
    const words = nameWords(query);
    const content = words.filter((w) => !STOPWORDS.has(w.word)).length || words.length;
    const found = new Map<string, Recognition>();
    for (let size = Math.min(MAX_NAME_WORDS, words.length); size >= 1; size--) {
      for (let start = 0; start + size <= words.length; start++) {
        const span = words.slice(start, start + size);
        if (size === 1 && (STOPWORDS.has(span[0].word) || span[0].word.length < 2)) continue;
        const keys = size === 1 ? [span[0].word] : [span.map((w) => w.word).join(' '), span.map((w) => w.word).join('')];
        for (const key of keys) {
          for (const entry of this.byKey.get(key) ?? []) {
            const id = `${entry.target.kind}:${entry.target.id}`;
            if (found.has(id)) continue;
            const covered = span.filter((w) => !STOPWORDS.has(w.word)).length;
            found.set(id, {
              target: entry.target,
              text: span.map((w) => w.raw).join(' '),
              matchedName: entry.name,
              coverage: Math.min(1, covered / content),
              start,
              end: start + size,
            });
          }
        }
      }
    }
    return [...found.values()].sort((a, b) => b.coverage - a.coverage || a.start - b.start || (a.target.id < b.target.id ? -1 : 1));
  }
}

export interface QueryUnderstanding {
  recognitions: Recognition[];
  /** Pages the query names (their title or an alias, or a name of an entity it names), with how strongly (0–1). */
  namedPages: Map<string, number>;
  /** For each named page, the query words that name it. */
  namedBy: Map<string, string>;
  /** The other names of what the query names: searched for too, at a lower weight. */
  expansion: string[];
  /** The entities the query names, with the share of the query that names them. */
  entities: { id: string; coverage: number; text: string }[];
}

/**
 * What the query names: pages by title or alias, entities by name, alias or merged name; an entity's names lead on
 * to pages with those titles or aliases (at `entityShare` of the strength), and every other name of a named page or
 * entity expands the query. Strength = the square of the share of the query the name covers: a query that is the
 * name counts whole, one word of a long question naming a page titled by that word very little (measured: a linear
 * share lifted generic titles above the answers to paraphrased and linked questions).
 */
export function understandQuery(dictionary: NameDictionary, query: string, entityShare = 0.8): QueryUnderstanding {
  const recognitions = dictionary.recognise(query);
  const namedPages = new Map<string, number>();
  const namedBy = new Map<string, string>();
  const spans = new Set(recognitions.flatMap((r) => nameKeys(r.text)));
  const expansion = new Map<string, string>();
  const name = (pageId: string, strength: number, text: string) => {
    if (strength > (namedPages.get(pageId) ?? 0)) {
      namedPages.set(pageId, strength);
      namedBy.set(pageId, text);
    }
  };
  const expand = (names: readonly string[]) => {
    for (const other of names) {
      const [key] = nameKeys(other);
      if (key && !spans.has(key) && !expansion.has(key)) expansion.set(key, other);
    }
  };
  const entities: QueryUnderstanding['entities'] = [];
  for (const r of recognitions) {
    const thing = dictionary.thing(r.target);
    const strength = r.coverage * r.coverage;
    if (r.target.kind === 'page') {
      name(r.target.id, strength, r.text);
    } else {
      entities.push({ id: r.target.id, coverage: r.coverage, text: r.text });
      for (const other of thing?.names ?? []) {
        for (const page of dictionary.named(other)) if (page.target.kind === 'page') name(page.target.id, strength * entityShare, r.text);
      }
    }
    expand(thing?.names ?? []);
  }
  return { recognitions, namedPages, namedBy, expansion: [...expansion.values()], entities };
}
