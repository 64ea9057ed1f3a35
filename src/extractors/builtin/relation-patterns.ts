// Typed relations the built-in extractor reads off a sentence: the words between two names state a predicate of the
// closed list (extraction.types.ts) — `Markdown is a lightweight markup language` (is_a), `the graph view requires
// the extension` (requires), `static site generators such as Jekyll` (is_a, the other way round). Only what the
// sentence says between the two names counts; anything else stays `related_to`.
import { wholeWordIndex } from '../../common/whole-words.js';
import type { ExtractedEntity, Predicate } from '../extraction.types.js';

type Direction = 'forward' | 'backward';

/** A connector between the first name (X) and the second (Y): the predicate, and whether it reads X → Y or Y → X. */
const CONNECTORS: [RegExp, Predicate, Direction][] = [
  [/^(?:is|are)(?: an?| one)?(?: [\p{L}-]+)?(?: plugin| extension| add-on| addon)s? (?:for|to|of)(?: the)?$/u, 'extends', 'forward'],
  [/^(?:is|are) (?:an? |the )?(?:[\p{L}-]+ )?(?:type|kind|form|sort|variant|subset|example) of(?: an?| the)?$/u, 'is_a', 'forward'],
  [/^(?:is|are) (?:a |an |the )?(?:core |main |key |built-in )?(?:part|component|section|feature|module) of(?: the| an?)?$/u, 'part_of', 'forward'],
  [/^(?:belongs? to|(?:is|are) (?:included|contained|found|located|configured|set) in|lives? in|(?:is|are) configured (?:through|via)|(?:is|are) available in)(?: the| an?)?$/u, 'part_of', 'forward'],
  [/^(?:panel|pane|section|menu|tab|setting|option|command|button|sidebar|view)s? (?:in|of)(?: the)?$/u, 'part_of', 'forward'],
  [/^(?:contains?|includes?|comes? with|(?:has|have) (?:an?|the|its own|built-in))(?: the| an?)?$/u, 'part_of', 'backward'],
  [/^(?:requires?|needs?|depends? on|relies? on|(?:is|are) required by)(?: the| an?)?$/u, 'requires', 'forward'],
  [/^(?:enables?|allows?|lets? you(?: use)?|makes? it possible to use|supports?|provides?|offers?|adds?)(?: the| an?| you to use)?$/u, 'enables', 'forward'],
  [/^(?:uses?|(?:is|are) (?:built|based) (?:on|with)|runs? on|(?:is|are) powered by|(?:is|are) written in|(?:is|are) rendered (?:with|by))(?: the| an?)?$/u, 'uses', 'forward'],
  [/^(?:replaces?|supersedes?|(?:is|are) the successor (?:of|to))(?: the| an?)?$/u, 'replaces', 'forward'],
  [/^(?:(?:is|are|was|were) (?:replaced|superseded) by)(?: the| an?)?$/u, 'replaces', 'backward'],
  [/^(?:(?:is|are) an? alternative to|as an alternative to|instead of|rather than)(?: the| an?)?$/u, 'alternative_to', 'forward'],
  [/^(?:extends?|builds? on|(?:is|are) an? fork of)(?: the| an?)?$/u, 'extends', 'forward'],
  [/^(?:implements?|(?:is|are) an? implementation of)(?: the| an?)?$/u, 'implements', 'forward'],
  [/^(?:(?:is|are|was|were) )?(?:created|developed|written|made|built|maintained|designed|founded|published) by(?: the)?$/u, 'created_by', 'forward'],
  [/^(?:describes?|documents?|explains?)(?: the| an?| how to use)?$/u, 'describes', 'forward'],
  [/^(?:(?:is|are|lives?|sits?|(?:is|are) stored) )?(?:inside|within)(?: of)?(?: the| an?)?$/u, 'part_of', 'forward'],
  [/^(?:leverages?|builds? upon)(?: the| an?)?$/u, 'uses', 'forward'],
  [/^(?:(?:is|are) (?:an?|the)(?: [\p{L}-]+){0,2})$/u, 'is_a', 'forward'],
  [/^are$/u, 'is_a', 'forward'],
  [/^(?:such as|like|e\.?g\.?|including)$/u, 'is_a', 'backward'],
];
const MAX_CONNECTOR_WORDS = 8;

/** The typed relation the sentence states between two names, or null. `sentence` is plain text (markup removed). */
export function typedRelation(sentence: string, a: ExtractedEntity, b: ExtractedEntity): { source: string; predicate: Predicate; target: string } | null {
  const text = sentence.toLowerCase();
  const pa = firstOccurrence(text, a);
  const pb = firstOccurrence(text, b);
  if (!pa || !pb) return null;
  const [first, second, x, y] = pa.start <= pb.start ? [pa, pb, a, b] : [pb, pa, b, a];
  if (second.start < first.end) return null;
  const between = text
    .slice(first.end, second.start)
    .replace(/[*_`"“”']/g, ' ')
    .replace(/^\s*,?\s*|\s*,?\s*$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (between === '' || between.split(' ').length > MAX_CONNECTOR_WORDS || /[.;:!?()]/.test(between)) return null;
  const connector = plainConnector(between);
  for (const [pattern, predicate, direction] of CONNECTORS) {
    if (!pattern.test(connector)) continue;
    return direction === 'forward' ? { source: x.name, predicate, target: y.name } : { source: y.name, predicate, target: x.name };
  }
  return null;
}

/**
 * The connector without what does not change its predicate: a relative pronoun before it (`that are included in`),
 * adverbs in it (`automatically`, `usually`), and a possessive or quantifier before the second name, read as `the`
 * (`in your`, `supports multiple`). A negation stays, and no pattern reads one.
 */
function plainConnector(between: string): string {
  return between
    .replace(/^(?:that|which|who) /, '')
    .replace(/(?:^| )\p{L}{3,}ly(?= |$)/gu, '')
    .replace(/ (?:your|its|their|our|my|his|her|this|these|those|multiple|many|several|all|any|each|every)$/, ' the')
    .trim();
}

function firstOccurrence(text: string, entity: ExtractedEntity): { start: number; end: number } | null {
  let best: { start: number; end: number } | null = null;
  for (const name of [entity.name, ...(entity.surfaces ?? [])]) {
    const needle = name.toLowerCase();
    const at = wholeWordIndex(text, needle);
    if (at >= 0 && (!best || at < best.start)) best = { start: at, end: at + needle.length };
  }
  return best;
}
