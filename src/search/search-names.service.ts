import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DatabaseNotifications } from '../db/database-notifications.js';
import { buildContextIndex, MAX_COUNT_PER_SOURCE, type ContextIndex } from './entity-context.js';
import { coMentionInformativeness, type NeighbourEdge } from './graph-proximity.js';
import { NameDictionary, type NamedThing } from './query-names.js';
import { SearchNamesRepository, type NeighbourRow } from './search-names.repository.js';

/** The channel migration 0012's triggers NOTIFY when titles, aliases, approved entities, edges or exclusions change. */
export const SEARCH_NAMES_CHANNEL = 'kurate_search_names';
/** While notifications cannot be heard (the LISTEN connection is down), the dictionary is read again this often. */
const UNRELIABLE_MAX_AGE_MS = 1_000;

/** What query understanding reads: names to pages and entities, and each entity's approved neighbours. */
export interface SearchKnowledge {
  dictionary: NameDictionary;
  /** Approved edges by entity, both directions. */
  neighbours: ReadonlyMap<string, readonly NeighbourEdge[]>;
  /** Each entity's type. */
  entityTypes: ReadonlyMap<string, string>;
  /** In how many chunks each entity is mentioned, and how many chunks mention any: an entity's rarity. */
  entityChunks: ReadonlyMap<string, number>;
  totalChunks: number;
  /** What other pages say about each approved entity, as a field of the page bearing its name (entity-context.ts). */
  context: ContextIndex;
}

function knowledgeOf(things: (NamedThing & { chunks: number })[], edges: NeighbourRow[], totalChunks: number, context: ContextIndex): SearchKnowledge {
  const neighbours = new Map<string, NeighbourEdge[]>();
  const chunks = new Map(things.filter((t) => t.kind === 'entity').map((t) => [t.id, t.chunks]));
  const add = (from: string, to: string, e: NeighbourRow) => {
    let list = neighbours.get(from);
    if (!list) neighbours.set(from, (list = []));
    // A co-mention's weight is the number of chunks naming both ends.
    const strength = e.kind === 'typed' ? e.confidence : coMentionInformativeness(e.weight, chunks.get(e.sourceId) ?? 0, chunks.get(e.targetId) ?? 0, totalChunks);
    list.push({ nodeId: to, kind: e.kind, predicate: e.predicate, strength });
  };
  for (const e of edges) {
    add(e.sourceId, e.targetId, e);
    add(e.targetId, e.sourceId, e);
  }
  const entityTypes = new Map(things.filter((t) => t.kind === 'entity').map((t) => [t.id, t.type ?? '']));
  return { dictionary: new NameDictionary(things), neighbours, entityTypes, entityChunks: chunks, totalChunks, context };
}

/** Each approved entity's home pages: the live pages whose title or alias is one of the entity's names. */
function homesOf(things: readonly (NamedThing & { visible: boolean })[]): { nodeId: string; pageId: string; visible: boolean }[] {
  const pages = new NameDictionary(things.filter((t) => t.kind === 'page'));
  const homes = new Map<string, { nodeId: string; pageId: string; visible: boolean }>();
  for (const entity of things) {
    if (entity.kind !== 'entity') continue;
    for (const name of entity.names) {
      for (const { target } of pages.named(name)) homes.set(`${entity.id} ${target.id}`, { nodeId: entity.id, pageId: target.id, visible: entity.visible });
    }
  }
  return [...homes.values()];
}

/**
 * The in-process dictionary of names (page titles and aliases, approved entities' names, aliases and merged names)
 * and the approved graph's neighbour lists, read in two queries and kept until something they hold changes. Every
 * process hears of a change through NOTIFY (DatabaseNotifications: the process's LISTEN connection, or PGlite's own
 * listener) and reads them again on its next search: no per-request scan.
 */
@Injectable()
export class SearchNamesService implements OnModuleInit {
  private readonly logger = new Logger('SearchNames');
  private epoch = 0;
  private cached: { epoch: number; at: number; visible: SearchKnowledge; all: SearchKnowledge } | null = null;
  private loading: { epoch: number; promise: Promise<{ visible: SearchKnowledge; all: SearchKnowledge }> } | null = null;

  constructor(
    private readonly repository: SearchNamesRepository,
    private readonly notifications: DatabaseNotifications,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.notifications.subscribe(SEARCH_NAMES_CHANNEL, { notified: () => this.changed(), reset: () => this.changed() });
  }

  /**
   * Whether this process hears every change the dictionary follows (its LISTEN connection is up, or the embedded
   * database's listener). While it does, knowledge() answers with every change committed before the call, so the
   * pages it names are live; while it does not, the dictionary may be up to a second old.
   */
  get heardEveryChange(): boolean {
    return this.notifications.listening;
  }

  /** Something the dictionary holds changed (a notification, or a write this process knows of): read it again. */
  changed(): void {
    this.epoch++;
  }

  /** The current dictionary and neighbour lists: what readers may see, or everything (an admin's explicit bypass). */
  async knowledge(includeExcluded = false): Promise<SearchKnowledge> {
    // On PostgreSQL, first hear every change committed before this search (an approval on another process included).
    await this.notifications.caughtUp();
    const fresh = this.cached && this.cached.epoch === this.epoch && (this.notifications.listening || Date.now() - this.cached.at < UNRELIABLE_MAX_AGE_MS);
    if (fresh) return includeExcluded ? this.cached!.all : this.cached!.visible;
    const epoch = this.epoch;
    if (!this.loading || this.loading.epoch !== epoch) {
      const promise = this.load();
      this.loading = { epoch, promise };
      promise.then(
        (loaded) => {
          if (!this.cached || this.cached.epoch <= epoch) this.cached = { epoch, at: Date.now(), ...loaded };
        },
        () => undefined,
      ).finally(() => {
        if (this.loading?.promise === promise) this.loading = null;
      });
    }
    const loaded = await this.loading.promise;
    return includeExcluded ? loaded.all : loaded.visible;
  }

  private async load(): Promise<{ visible: SearchKnowledge; all: SearchKnowledge }> {
    const timed = async <T>(read: () => Promise<T>): Promise<[T, number]> => {
      const started = Date.now();
      return [await read(), Date.now() - started];
    };
    const [rows, namesMs] = await timed(() => this.repository.named());
    const [edges, edgesMs] = await timed(() => this.repository.neighbours());
    const [totalChunks] = await timed(() => this.repository.mentioningChunks());
    const things = rows.map((r) => ({ kind: r.kind, id: r.id, name: r.name, names: r.names, type: r.type ?? undefined, visible: r.visible, chunks: r.chunks }));
    const [contexts, contextMs] = await timed(() => this.repository.contextTerms(homesOf(things), MAX_COUNT_PER_SOURCE));
    const visible = knowledgeOf(things.filter((t) => t.visible), edges.filter((e) => e.visible), totalChunks, buildContextIndex(contexts.map((c) => ({ ...c, count: c.visibleCount }))));
    const all = knowledgeOf(things, edges, totalChunks, buildContextIndex(contexts));
    this.logger.debug(`Names of ${rows.length} pages and entities (${namesMs} ms), ${edges.length} edges (${edgesMs} ms), ${contexts.length} entity-context rows (${contextMs} ms) read`);
    return { visible, all };
  }
}
