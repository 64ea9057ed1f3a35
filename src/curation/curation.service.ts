import { Inject, Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { CurationWritesRepository, type DeleteImpact, type LockedNode } from '../admin/curation-writes.repository.js';
import { EntitiesRepository, type EdgeRow, type EntityRow } from './entities.repository.js';
import { ReviewErrors } from '../admin/review-errors.js';
import { NODE_EMBEDDING_HOOK, type NodeEmbeddingHook } from '../kg/review-hooks.js';
import { ReviewJournalRepository, type ActionJournal } from '../admin/review-journal.repository.js';
import { lockNameVariants } from '../kg/variant-locks.js';
import { edgeSignature, nodeSignature } from '../admin/review-signature.js';
import { isEntityType, isPredicate, REVIEW_PREDICATES, REVIEW_TYPES } from '../admin/review-vocabulary.js';
import { ReviewWritesRepository } from '../admin/review-writes.repository.js';

export interface EntityInput {
  name: string;
  type: string;
  aliases?: string[];
  description?: string;
}

export type EntityChanges = Partial<EntityInput>;

export interface EdgeChanges {
  predicate?: string;
  swapDirection?: boolean;
  weight?: number;
}

export interface ActionResult {
  actionId: string;
  summary: string;
}

export const MAX_ALIASES = 100;

/**
 * Curating the approved graph: create, edit, delete and merge entities; create, edit, delete (and reject) edges.
 * Each is one transaction, journaled for undo and audited.
 */
@Injectable()
export class CurationService {
  constructor(
    private readonly journal: ReviewJournalRepository,
    private readonly curation: CurationWritesRepository,
    private readonly writes: ReviewWritesRepository,
    private readonly entities: EntitiesRepository,
    private readonly audit: AuditService,
    @Optional() @Inject(NODE_EMBEDDING_HOOK) private readonly embeddings: NodeEmbeddingHook | null = null,
  ) {}

  createEntity(input: EntityInput, origin: RequestOrigin): Promise<ActionResult & { entity: EntityRow }> {
    return this.journal.transaction(async (tx) => {
      const next = this.cleanEntity(input.name, input.type, input.aliases ?? [], input.description ?? '');
      // Its names first, as approval takes them (src/kg/variant-locks.ts): a run extracting a page that names it
      // waits, then links its mentions to it, or has committed them and they are linked below.
      await lockNameVariants([next.name, ...next.aliases], tx);
      await this.refuseTakenSignature(next.signature, null, tx);
      const j = await this.journal.open(tx, 'entity_create', origin.actor, null, 'creating');
      const id = await this.curation.createNode(j, next, 'manual', origin.actor.name);
      await this.linkMentions(j, id, origin);
      await this.embed(j, [id]);
      const summary = `Created entity “${next.name}” (${next.type}).`;
      return this.finish(j, summary, 'kg.entity.create', `entity:${id}`, { entityId: id, name: next.name, type: next.type }, origin, async () => ({
        entity: (await this.entities.get(id, tx))!,
      }));
    });
  }

  updateEntity(id: string, changes: EntityChanges, origin: RequestOrigin): Promise<ActionResult & { entity: EntityRow }> {
    return this.editEntity(id, () => changes, origin);
  }

  /**
   * An edit whose changes are decided from the entity as it is once locked: an edit of its aliases made from an
   * earlier read would undo a synonym another admin added in between.
   */
  private editEntity(id: string, changesOf: (current: LockedNode) => EntityChanges, origin: RequestOrigin): Promise<ActionResult & { entity: EntityRow }> {
    return this.journal.transaction(async (tx) => {
      const current = await this.lockNode(id, tx);
      const changes = changesOf(current);
      const next = this.cleanEntity(
        changes.name ?? current.name,
        changes.type ?? current.type,
        changes.aliases ?? current.aliases,
        changes.description ?? current.description,
      );
      if (next.signature !== current.signature) await this.refuseTakenSignature(next.signature, id, tx);
      const newNames = [next.name, ...next.aliases].filter((name) => name !== current.name && !current.aliases.includes(name));
      await lockNameVariants(newNames, tx);
      const j = await this.journal.open(tx, 'entity_update', origin.actor, `entity:${id}`, 'editing');
      await this.curation.updateNode(j, current, next);
      const changed = (['name', 'type', 'aliases', 'description'] as const).filter((k) => JSON.stringify(next[k]) !== JSON.stringify(current[k]));
      if (changed.includes('name') || changed.includes('aliases')) await this.linkMentions(j, id, origin);
      if (changed.some((k) => k !== 'aliases')) await this.embed(j, [id]);
      const renamed = next.name !== current.name ? ` (was “${current.name}”)` : '';
      const summary = changed.length === 0 ? `Saved entity “${next.name}” unchanged.` : `Edited entity “${next.name}”${renamed}: ${changed.join(', ')}.`;
      return this.finish(j, summary, 'kg.entity.update', `entity:${id}`, { entityId: id, changed }, origin, async () => ({
        entity: (await this.entities.get(id, tx))!,
      }));
    });
  }

  /**
   * Adds a synonym (an alias): search then understands a query naming it as naming this entity (docs/search.md). One
   * journaled, audited and undoable edit, like any other; a name it already has changes nothing.
   */
  async addSynonym(id: string, synonym: string, origin: RequestOrigin): Promise<ActionResult & { entity: EntityRow }> {
    const name = synonym.trim();
    if (!name) throw ReviewErrors.invalid('A synonym may not be empty.');
    return this.editEntity(id, (current) => ({ aliases: [...current.aliases, name] }), origin);
  }

  /** Removes a synonym (compared without regard to case); one that the entity does not have is a 404. */
  async removeSynonym(id: string, synonym: string, origin: RequestOrigin): Promise<ActionResult & { entity: EntityRow }> {
    const key = synonym.trim().toLowerCase();
    return this.editEntity(id, (current) => {
      const kept = current.aliases.filter((a) => a.toLowerCase() !== key);
      if (kept.length === current.aliases.length) throw ReviewErrors.notFound(`The synonym “${synonym.trim()}” of entity ${id}`);
      return { aliases: kept };
    }, origin);
  }

  /** What deleting the entity takes with it (for the confirmation). */
  async deleteImpact(id: string): Promise<{ entity: EntityRow; impact: DeleteImpact }> {
    const entity = await this.entities.get(id);
    if (!entity) throw ReviewErrors.notFound(`Entity ${id}`);
    return { entity, impact: await this.curation.deleteImpact(id, this.journal.manager) };
  }

  deleteEntity(id: string, options: { reject: boolean; reason: string | null }, origin: RequestOrigin): Promise<ActionResult & { impact: DeleteImpact }> {
    return this.journal.transaction(async (tx) => {
      const node = await this.lockNode(id, tx);
      const impact = await this.curation.deleteImpact(id, tx);
      const j = await this.journal.open(tx, 'entity_delete', origin.actor, `entity:${id}`, 'deleting');
      if (options.reject) await this.curation.rememberRejection(j, 'node', node.signature, options.reason, origin.actor.name);
      await this.curation.deleteNode(j, id);
      const edges = impact.typedEdges + impact.coMentionEdges;
      const summary = `Deleted entity “${node.name}” (${node.type}) with ${plural(edges, 'edge')}; ${plural(impact.mentions, 'mention')} unlinked${options.reject ? '; it will not be proposed again' : ''}.`;
      return this.finish(j, summary, options.reject ? 'kg.entity.delete_reject' : 'kg.entity.delete', `entity:${id}`, {
        entityId: id, name: node.name, ...impact, reason: options.reason,
      }, origin, async () => ({ impact }));
    });
  }

  /** Merges `fromId` into `intoId`: aliases united, edges and mentions re-pointed, duplicate edges collapsed. */
  merge(fromId: string, intoId: string, origin: RequestOrigin): Promise<ActionResult & { entity: EntityRow; edgesRepointed: number; edgesCollapsed: number; mentionsMoved: number }> {
    if (fromId === intoId) throw ReviewErrors.invalid('An entity cannot be merged into itself; choose another one.');
    return this.journal.transaction(async (tx) => {
      const nodes = await this.curation.lockNodes([fromId, intoId], tx);
      const visible = new Set((await this.entities.getMany([fromId, intoId], tx)).map((e) => e.id));
      const from = nodes.find((n) => n.id === fromId && visible.has(n.id));
      const into = nodes.find((n) => n.id === intoId && visible.has(n.id));
      if (!from) throw ReviewErrors.notFound(`Entity ${fromId}`);
      if (!into) throw ReviewErrors.notFound(`Entity ${intoId}`);
      const aliases = uniqueAliases([...into.aliases, from.name, ...from.aliases], into.name).slice(0, MAX_ALIASES);
      const description = into.description || from.description;
      const j = await this.journal.open(tx, 'entity_merge', origin.actor, `entity:${intoId}`, 'merging');
      const moved = await this.curation.mergeNodes(j, from, into, aliases, description);
      await this.writes.deriveCoMentions(j, origin.actor.name, 'SELECT $1::bigint', [intoId]);
      await this.embed(j, [intoId]);
      const summary = `Merged “${from.name}” (${from.type}) into “${into.name}” (${into.type}): ${plural(moved.edgesRepointed, 'edge')} re-pointed, ${plural(moved.edgesCollapsed, 'duplicate edge')} collapsed, ${plural(moved.mentionsMoved, 'mention')} moved.`;
      return this.finish(j, summary, 'kg.entity.merge', `entity:${intoId}`, { from: fromId, into: intoId, fromName: from.name, ...moved }, origin, async () => ({
        entity: (await this.entities.get(intoId, tx))!,
        ...moved,
      }));
    });
  }

  createEdge(sourceId: string, targetId: string, predicate: string, origin: RequestOrigin): Promise<ActionResult & { edge: EdgeRow }> {
    if (!isPredicate(predicate)) throw ReviewErrors.invalid(`“${predicate}” is not a predicate; use one of: ${REVIEW_PREDICATES.join(', ')}.`);
    if (sourceId === targetId) throw ReviewErrors.invalid('An edge joins two different entities.');
    return this.journal.transaction(async (tx) => {
      const nodes = await this.curation.lockNodes([sourceId, targetId], tx);
      const visible = new Set((await this.entities.getMany([sourceId, targetId], tx)).map((e) => e.id));
      const source = nodes.find((n) => n.id === sourceId && visible.has(n.id));
      const target = nodes.find((n) => n.id === targetId && visible.has(n.id));
      if (!source) throw ReviewErrors.notFound(`Entity ${sourceId}`);
      if (!target) throw ReviewErrors.notFound(`Entity ${targetId}`);
      const existing = await this.curation.edgeIdByKey(sourceId, targetId, 'typed', predicate, tx);
      if (existing) throw ReviewErrors.conflict('exists', `“${source.name}” ${predicate} “${target.name}” exists already (edge ${existing}).`, { edgeId: existing });
      const j = await this.journal.open(tx, 'edge_create', origin.actor, null, 'creating');
      const id = await this.curation.createEdge(j, sourceId, targetId, predicate, 'manual', origin.actor.name);
      const summary = `Created edge “${source.name}” ${predicate} “${target.name}”.`;
      return this.finish(j, summary, 'kg.edge.create', `edge:${id}`, { edgeId: id, sourceId, targetId, predicate }, origin, async () => ({
        edge: (await this.entities.getEdge(id, tx))!,
      }));
    });
  }

  updateEdge(id: string, changes: EdgeChanges, origin: RequestOrigin): Promise<ActionResult & { edge: EdgeRow }> {
    if (changes.predicate !== undefined && !isPredicate(changes.predicate)) {
      throw ReviewErrors.invalid(`“${changes.predicate}” is not a predicate; use one of: ${REVIEW_PREDICATES.join(', ')}.`);
    }
    return this.journal.transaction(async (tx) => {
      const edge = await this.curation.lockEdge(id, tx);
      if (!edge || !(await this.entities.getEdge(id, tx))) throw ReviewErrors.notFound(`Edge ${id}`);
      if (edge.kind !== 'typed') throw ReviewErrors.invalid('A co-mention edge is derived from the pages (its weight counts shared passages); it cannot be edited, only deleted.');
      const swap = changes.swapDirection === true;
      const next = {
        sourceNodeId: swap ? edge.targetNodeId : edge.sourceNodeId,
        targetNodeId: swap ? edge.sourceNodeId : edge.targetNodeId,
        predicate: changes.predicate ?? edge.predicate,
        weight: changes.weight ?? edge.weight,
      };
      const clash = await this.curation.edgeIdByKey(next.sourceNodeId, next.targetNodeId, 'typed', next.predicate, tx);
      if (clash && clash !== id) throw ReviewErrors.conflict('exists', `That edge exists already (edge ${clash}); delete this one instead.`, { edgeId: clash });
      const j = await this.journal.open(tx, 'edge_update', origin.actor, `edge:${id}`, 'editing');
      await this.curation.updateEdge(j, id, next);
      const after = (await this.entities.getEdge(id, tx))!;
      const summary = `Edited edge ${id}: now “${after.sourceName}” ${after.predicate} “${after.targetName}”${swap ? ' (direction swapped)' : ''}.`;
      return this.finish(j, summary, 'kg.edge.update', `edge:${id}`, { edgeId: id, ...changes }, origin, async () => ({ edge: after }));
    });
  }

  deleteEdge(id: string, options: { reject: boolean; reason: string | null }, origin: RequestOrigin): Promise<ActionResult> {
    return this.journal.transaction(async (tx) => {
      const edge = await this.curation.lockEdge(id, tx);
      const shown = edge ? await this.entities.getEdge(id, tx) : null;
      if (!edge || !shown) throw ReviewErrors.notFound(`Edge ${id}`);
      if (options.reject && edge.kind !== 'typed') {
        throw ReviewErrors.invalid('A co-mention edge is derived from the pages; it can be deleted, not rejected (reject one of its entities instead).');
      }
      const j = await this.journal.open(tx, 'edge_delete', origin.actor, `edge:${id}`, 'deleting');
      if (options.reject) {
        await this.curation.rememberRejection(j, 'edge', edgeSignature(edge.sourceSignature, edge.predicate, edge.targetSignature), options.reason, origin.actor.name);
      }
      await this.curation.deleteEdge(j, id);
      const summary = `Deleted edge “${shown.sourceName}” ${edge.kind === 'typed' ? edge.predicate : 'co-mentioned with'} “${shown.targetName}”${options.reject ? '; it will not be proposed again' : ''}.`;
      return this.finish(j, summary, options.reject ? 'kg.edge.delete_reject' : 'kg.edge.delete', `edge:${id}`, {
        edgeId: id, predicate: edge.predicate, reason: options.reason,
      }, origin, async () => ({}));
    });
  }

  private async finish<T extends object>(
    j: ActionJournal,
    summary: string,
    auditAction: string,
    target: string,
    details: Record<string, unknown>,
    origin: RequestOrigin,
    result: () => Promise<T>,
  ): Promise<ActionResult & T> {
    await this.journal.close(j, summary, details, target);
    await this.audit.record(origin.actor, auditAction, target, { journal: j.actionId, summary, ...details }, origin.ip, j.tx);
    return { actionId: j.actionId, summary, ...(await result()) };
  }

  /** The mentions a new name or synonym of the entity names are linked to it, and its co-mention edges follow. */
  private async linkMentions(j: ActionJournal, id: string, origin: RequestOrigin): Promise<void> {
    if ((await this.curation.linkMentionsNamed(j, id)) > 0) await this.writes.deriveCoMentions(j, origin.actor.name, 'SELECT $1::bigint', [id]);
  }

  private async lockNode(id: string, tx: EntityManager): Promise<LockedNode> {
    const [node] = await this.curation.lockNodes([id], tx);
    if (!node || !(await this.entities.get(id, tx))) throw ReviewErrors.notFound(`Entity ${id}`);
    return node;
  }

  private async refuseTakenSignature(signature: string, self: string | null, tx: EntityManager): Promise<void> {
    const existing = await this.curation.nodeIdBySignature(signature, tx);
    if (existing && existing !== self) {
      throw ReviewErrors.conflict('exists', `An entity with that name and type exists already (entity ${existing}); merge into it instead.`, { entityId: existing });
    }
  }

  private cleanEntity(name: string, type: string, aliases: string[], description: string) {
    const cleanName = name.normalize('NFC').replace(/\s+/gu, ' ').trim();
    if (cleanName === '') throw ReviewErrors.invalid('The name may not be empty.');
    if (!isEntityType(type)) throw ReviewErrors.invalid(`“${type}” is not an entity type; use one of: ${REVIEW_TYPES.join(', ')}.`);
    const cleanAliases = uniqueAliases(aliases, cleanName);
    if (cleanAliases.length > MAX_ALIASES) throw ReviewErrors.invalid(`An entity has at most ${MAX_ALIASES} aliases.`);
    return { signature: nodeSignature(cleanName, type), name: cleanName, type, aliases: cleanAliases, description: description.trim() };
  }

  private async embed(j: ActionJournal, nodeIds: string[]): Promise<void> {
    const hook = this.embeddings;
    if (!hook) return;
    await this.curation.journalEmbeddings(j, nodeIds, () => hook.embedNodes(nodeIds, j.tx));
  }
}

/** Aliases trimmed, without blanks, case-insensitive duplicates or the name itself, in their first order. */
export function uniqueAliases(aliases: string[], name: string): string[] {
  const seen = new Set([name.toLowerCase()]);
  const result: string[] = [];
  for (const raw of aliases) {
    const alias = raw.normalize('NFC').replace(/\s+/gu, ' ').trim();
    if (alias === '' || seen.has(alias.toLowerCase())) continue;
    seen.add(alias.toLowerCase());
    result.push(alias);
  }
  return result;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
