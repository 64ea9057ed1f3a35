import { ENTITY_TYPES, PREDICATES, type EntityType, type Predicate } from './extraction.types.js';

// What models say instead of our closed vocabularies. Keys are normalised by `vocabularyKey`
// (lower case, words joined by underscores), so `Programming Language`, `programming-language` and
// `programming_language` are one key. Anything not listed becomes `other` / `related_to`.

const TYPE_ALIASES: Record<string, EntityType> = {
  // person
  people: 'person', human: 'person', individual: 'person', author: 'person', developer: 'person', engineer: 'person',
  researcher: 'person', scientist: 'person', user: 'person', maintainer: 'person', contributor: 'person',
  character: 'person', per: 'person',
  // organization
  organisation: 'organization', org: 'organization', company: 'organization', corporation: 'organization',
  business: 'organization', enterprise: 'organization', institution: 'organization', agency: 'organization',
  team: 'organization', group: 'organization', foundation: 'organization', university: 'organization',
  nonprofit: 'organization', non_profit: 'organization', vendor: 'organization', community: 'organization',
  government: 'organization', startup: 'organization',
  // place
  location: 'place', loc: 'place', gpe: 'place', city: 'place', country: 'place', region: 'place', state: 'place',
  address: 'place', site: 'place', venue: 'place', geo: 'place', geography: 'place', continent: 'place',
  // event
  conference: 'event', meeting: 'event', incident: 'event', release: 'event', meetup: 'event', workshop: 'event',
  holiday: 'event', war: 'event', date: 'event',
  // product
  app: 'product', application: 'product', service: 'product', device: 'product', hardware: 'product', tool: 'product',
  extension: 'product', plugin: 'product', plug_in: 'product', add_on: 'product', addon: 'product', website: 'product',
  brand: 'product', editor: 'product', saas: 'product', software_product: 'product',
  // technology
  tech: 'technology', framework: 'technology', library: 'technology', lib: 'technology', language: 'technology',
  programming_language: 'technology', protocol: 'technology', standard: 'technology', format: 'technology',
  file_format: 'technology', database: 'technology', api: 'technology', software: 'technology', algorithm: 'technology',
  platform: 'technology', runtime: 'technology', package: 'technology', module: 'technology', sdk: 'technology',
  syntax: 'technology', markup_language: 'technology', data_format: 'technology', system: 'technology',
  // concept
  idea: 'concept', topic: 'concept', theory: 'concept', term: 'concept', principle: 'concept', feature: 'concept',
  pattern: 'concept', method: 'concept', methodology: 'concept', technique: 'concept', practice: 'concept',
  field: 'concept', discipline: 'concept', process: 'concept', approach: 'concept', abstract_concept: 'concept',
  notion: 'concept', workflow: 'concept', skill: 'concept',
  // project
  initiative: 'project', repository: 'project', repo: 'project', program: 'project', programme: 'project',
  open_source_project: 'project', campaign: 'project',
  // document
  article: 'document', paper: 'document', book: 'document', page: 'document', note: 'document',
  specification: 'document', spec: 'document', report: 'document', documentation: 'document', doc: 'document',
  guide: 'document', file: 'document', publication: 'document', rfc: 'document', tutorial: 'document',
  // other
  misc: 'other', miscellaneous: 'other', unknown: 'other', thing: 'other', entity: 'other', none: 'other',
};

const PREDICATE_ALIASES: Record<string, Predicate> = {
  related: 'related_to', relates_to: 'related_to', associated_with: 'related_to', connected_to: 'related_to',
  linked_to: 'related_to', links_to: 'related_to', mentions: 'related_to', see_also: 'related_to',
  similar_to: 'related_to', co_occurs_with: 'related_to',
  is_part_of: 'part_of', belongs_to: 'part_of', component_of: 'part_of', contained_in: 'part_of',
  subset_of: 'part_of', section_of: 'part_of', included_in: 'part_of', feature_of: 'part_of',
  is_an: 'is_a', instance_of: 'is_a', type_of: 'is_a', kind_of: 'is_a', a_kind_of: 'is_a', subclass_of: 'is_a',
  subtype_of: 'is_a', example_of: 'is_a', is_type_of: 'is_a', category: 'is_a',
  utilizes: 'uses', utilises: 'uses', built_with: 'uses', built_on: 'uses', makes_use_of: 'uses', powered_by: 'uses',
  runs_on: 'uses', written_in: 'uses', leverages: 'uses', integrates_with: 'uses', uses_a: 'uses',
  depends_on: 'requires', dependent_on: 'requires', needs: 'requires', relies_on: 'requires', prerequisite: 'requires',
  has_prerequisite: 'requires', requires_a: 'requires', has_dependency: 'requires',
  allows: 'enables', supports: 'enables', facilitates: 'enables', makes_possible: 'enables', empowers: 'enables',
  provides: 'enables', permits: 'enables',
  realizes: 'implements', realises: 'implements', implementation_of: 'implements', is_implementation_of: 'implements',
  builds_on: 'extends', extension_of: 'extends', plugin_for: 'extends', plugin_of: 'extends', add_on_for: 'extends',
  inherits_from: 'extends', enhances: 'extends', expands: 'extends', fork_of: 'extends', based_on: 'extends',
  supersedes: 'replaces', succeeds: 'replaces', obsoletes: 'replaces', successor_of: 'replaces', deprecates: 'replaces',
  successor_to: 'replaces', is_successor_of: 'replaces',
  alternative: 'alternative_to', alternative_for: 'alternative_to', competes_with: 'alternative_to',
  competitor_of: 'alternative_to', competitor_to: 'alternative_to', instead_of: 'alternative_to', versus: 'alternative_to',
  vs: 'alternative_to', substitute_for: 'alternative_to',
  authored_by: 'created_by', written_by: 'created_by', developed_by: 'created_by', made_by: 'created_by',
  founded_by: 'created_by', invented_by: 'created_by', built_by: 'created_by', maintained_by: 'created_by',
  designed_by: 'created_by', published_by: 'created_by', produced_by: 'created_by', owned_by: 'created_by',
  based_in: 'located_in', in: 'located_in', located_at: 'located_in', headquartered_in: 'located_in',
  situated_in: 'located_in', lives_in: 'located_in', hosted_in: 'located_in', hosted_on: 'located_in',
  works_for: 'member_of', works_at: 'member_of', employed_by: 'member_of', affiliated_with: 'member_of',
  member: 'member_of', is_member_of: 'member_of', team_member_of: 'member_of',
  documents: 'describes', explains: 'describes', about: 'describes', covers: 'describes', defines: 'describes',
  documentation_for: 'describes', is_about: 'describes', introduces: 'describes',
};

// Predicates said the other way round: `A contains B` is `B part_of A`.
const INVERSE_ALIASES: Record<string, Predicate> = {
  contains: 'part_of', has_part: 'part_of', includes: 'part_of', has_component: 'part_of', consists_of: 'part_of',
  has_feature: 'part_of', comprises: 'part_of',
  has_instance: 'is_a', has_subtype: 'is_a', superclass_of: 'is_a',
  used_by: 'uses', is_used_by: 'uses', powers: 'uses',
  required_by: 'requires', dependency_of: 'requires', is_required_by: 'requires', prerequisite_for: 'requires',
  prerequisite_of: 'requires', is_dependency_of: 'requires',
  enabled_by: 'enables', supported_by: 'enables', provided_by: 'enables',
  implemented_by: 'implements', is_implemented_by: 'implements',
  extended_by: 'extends', has_plugin: 'extends', has_extension: 'extends',
  replaced_by: 'replaces', superseded_by: 'replaces', succeeded_by: 'replaces', predecessor_of: 'replaces',
  created: 'created_by', authored: 'created_by', wrote: 'created_by', developed: 'created_by', founded: 'created_by', invented: 'created_by',
  built: 'created_by', maintains: 'created_by', designed: 'created_by', creator_of: 'created_by', author_of: 'created_by',
  published: 'created_by', owns: 'created_by',
  location_of: 'located_in', hosts: 'located_in', home_of: 'located_in',
  has_member: 'member_of', employs: 'member_of', includes_member: 'member_of',
  described_by: 'describes', documented_in: 'describes', documented_by: 'describes', explained_in: 'describes',
  defined_in: 'describes', described_in: 'describes',
};

const ENTITY_TYPE_SET = new Set<string>(ENTITY_TYPES);
const PREDICATE_SET = new Set<string>(PREDICATES);

/** `Programming Language`, `programming-language`, `ProgrammingLanguage` → `programming_language`. */
export function vocabularyKey(value: string): string {
  return value
    .normalize('NFKC')
    .trim()
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s\-./:]+/g, '_')
    .replace(/[^\p{L}\p{N}_]/gu, '')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
}

export interface MappedType {
  type: EntityType;
  /** false when the value was not recognised and fell back to `other`. */
  known: boolean;
}

/** Maps what a model said to our entity types; anything unrecognised is `other` (never an error). */
export function normaliseEntityType(value: unknown): MappedType {
  if (typeof value !== 'string') return { type: 'other', known: false };
  const key = vocabularyKey(value);
  if (ENTITY_TYPE_SET.has(key)) return { type: key as EntityType, known: true };
  const alias = TYPE_ALIASES[key] ?? TYPE_ALIASES[singular(key)];
  if (alias) return { type: alias, known: true };
  if (ENTITY_TYPE_SET.has(singular(key))) return { type: singular(key) as EntityType, known: true };
  // The head noun of a longer phrase: `VS Code extension` → extension, `open source project` → project.
  const head = key.slice(key.lastIndexOf('_') + 1);
  if (head !== key) return normaliseEntityType(head);
  return { type: 'other', known: false };
}

export interface MappedPredicate {
  predicate: Predicate;
  /** The model said it the other way round (`contains`): swap source and target. */
  inverted: boolean;
  /** false when the value was not recognised and fell back to `related_to`. */
  known: boolean;
}

/** Maps what a model said to our closed predicate list; anything unrecognised is `related_to`. */
export function normalisePredicate(value: unknown): MappedPredicate {
  if (typeof value !== 'string') return { predicate: 'related_to', inverted: false, known: false };
  const key = vocabularyKey(value);
  if (PREDICATE_SET.has(key)) return { predicate: key as Predicate, inverted: false, known: true };
  const direct = PREDICATE_ALIASES[key];
  if (direct) return { predicate: direct, inverted: false, known: true };
  const inverse = INVERSE_ALIASES[key];
  if (inverse) return { predicate: inverse, inverted: true, known: true };
  // `is_used_by`, `was_created_by`, `is_located_in`: drop a leading auxiliary and try again.
  const stripped = key.replace(/^(is|are|was|were|has_been|have_been|being)_/, '');
  if (stripped !== key) return normalisePredicate(stripped);
  return { predicate: 'related_to', inverted: false, known: false };
}

function singular(key: string): string {
  if (key.endsWith('ies')) return `${key.slice(0, -3)}y`;
  if (key.endsWith('sses')) return key.slice(0, -2);
  if (key.endsWith('s') && !key.endsWith('ss')) return key.slice(0, -1);
  return key;
}
