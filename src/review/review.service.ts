import { Inject, Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { CurationWritesRepository } from '../admin/curation-writes.repository.js';
import { ProposalsRepository, type ProposalRow, type QueueFilter } from './proposals.repository.js';
import { ReviewErrors } from '../admin/review-errors.js';
import { NODE_EMBEDDING_HOOK, type NodeEmbeddingHook } from '../kg/review-hooks.js';
import { lockNameVariants } from '../kg/variant-locks.js';
import { ReviewJournalRepository, StaleReviewRead, type ActionJournal } from '../admin/review-journal.repository.js';
import { nodeSignature } from '../admin/review-signature.js';
import { isEntityType, isPredicate, REVIEW_PREDICATES, REVIEW_TYPES } from '../admin/review-vocabulary.js';
import { ReviewWritesRepository, type BatchItem, type BatchOutcome } from '../admin/review-writes.repository.js';

/** What an admin may change before approving. */
export interface ApprovalEdits {
  /** Nodes: a new name. */
  name?: string;
  /** Nodes: a type of the closed vocabulary. */
  type?: string;
  /** Nodes: a description for the entity. */
  description?: string;
  /** Nodes: approve into this existing entity instead ("merge into"): its name stays, the proposal's becomes an alias. */
  intoEntityId?: string;
  /** Edges: a predicate of the closed list. */
  predicate?: string;
  /** Edges: source and target exchanged. */
  swapDirection?: boolean;
}

export interface ApprovedItem {
  proposalId: string;
  kind: 'node' | 'edge';
  /** Approved because an approved edge needed this endpoint (it was still pending). */
  withEdge: string | null;
  nodeId: string | null;
  edgeId: string | null;
  /** Nodes: a new entity (false: the proposal joined an entity that existed). */
  createdEntity: boolean;
}

export interface ReviewOutcome {
  actionId: string | null;
  status: 'approved' | 'rejected';
  /** One sentence, for the notice an admin sees and the audit trail. */
  summary: string;
  items: ApprovedItem[];
  /** Requested proposals that were left as they are, and why (bulk only: a single request is refused instead). */
  skipped: { proposalId: string; reason: string }[];
}

/** What taking a rejection back did. */
export interface ReopenOutcome {
  actionId: string;
  /** The proposal's status now: pending, or retired when no page supports it any more; null without a proposal. */
  status: 'pending' | 'retired' | null;
  summary: string;
  /** Whether kg_rejections held the signature (a proposal rejected twice, or an undone rejection, may have none). */
  rejectionCleared: boolean;
}

export interface BulkRequest {
  action: 'approve' | 'reject';
  /** The selection; or, without it, every pending proposal matching `filter` (with `minConfidence`), best first. */
  ids?: string[];
  filter?: Omit<QueueFilter, 'status'>;
  minConfidence?: number;
  /** At most this many proposals per request (default 1,000; max 5,000). */
  limit?: number;
  reason?: string;
}

export const BULK_DEFAULT_LIMIT = 1000;
export const BULK_MAX_LIMIT = 5000;

interface PlannedItem extends BatchItem {
  label: string;
  withEdge: string | null;
  /** Edges: the endpoints' names, for messages. */
  sourceLabel: string;
  targetLabel: string;
}

/**
 * Approve, edit-then-approve, reject and bulk: each one transaction that locks the proposals still pending (a
 * second admin acting on the same proposal waits, then is told it was already reviewed), writes the graph
 * set-based, journals every row it touched for undo, and records an audit entry.
 */
@Injectable()
export class ReviewService {
  constructor(
    private readonly journal: ReviewJournalRepository,
    private readonly proposals: ProposalsRepository,
    private readonly writes: ReviewWritesRepository,
    private readonly curation: CurationWritesRepository,
    private readonly audit: AuditService,
    @Optional() @Inject(NODE_EMBEDDING_HOOK) private readonly embeddings: NodeEmbeddingHook | null = null,
  ) {}

  approve(id: string, edits: ApprovalEdits, note: string | null, origin: RequestOrigin): Promise<ReviewOutcome> {
    return this.journal.transaction(async (tx) => {
      // A new name given here is a name this approval may create, like a stored one: locked with them.
      const [row] = await this.lockOne(id, tx, edits.name?.trim() ? [edits.name.trim()] : []);
      const planned = await this.plan([row], new Map([[id, edits]]), tx, true);
      const main = planned.items.find((i) => i.proposalId === id)!;
      // A form may send the proposed values back unchanged: only a real difference counts as an edit.
      const edited = row.kind === 'node'
        ? main.name !== row.name || main.type !== row.type || main.intoNodeId !== null || main.description !== (row.description ?? '').trim()
        : main.predicate !== row.predicate || main.sourceSignature !== row.sourceSignature;
      return this.applyApproval(planned.items, [], note, origin, tx, edited ? 'edit-approve' : 'approve');
    });
  }

  reject(id: string, reason: string | null, origin: RequestOrigin): Promise<ReviewOutcome> {
    return this.journal.transaction(async (tx) => {
      const rows = await this.lockOne(id, tx);
      return this.applyRejection(rows, [], reason, origin, tx, false);
    });
  }

  /**
   * Takes a rejection back: the proposal returns to the queue (retired instead when no page supports it any more) and
   * its signature leaves kg_rejections, so extraction may propose it again. One undoable action, like the others.
   */
  reopen(id: string, origin: RequestOrigin): Promise<ReopenOutcome> {
    return this.journal.transaction(async (tx) => {
      const row = await this.proposals.lockRejected(id, tx);
      const current = row ?? (await this.proposals.get(id, tx));
      // Like every review read: what only excluded pages support is not there for the admin.
      if (!current || !(await this.proposals.isVisible(id, tx))) throw ReviewErrors.notFound(`Proposal ${id}`);
      if (!row) {
        throw ReviewErrors.conflict('not_rejected', `Proposal ${id} is ${current.status}, not rejected: there is no rejection to take back.`, {
          proposalId: id, status: current.status,
        });
      }
      const twin = await this.proposals.pendingIdWithSignature(row.kind, row.signature, tx);
      if (twin) {
        throw ReviewErrors.conflict('already_pending', `Proposal ${twin} proposes the same ${row.kind} and is pending: review that one instead.`, {
          proposalId: id, pendingProposalId: twin,
        });
      }
      const actor = origin.actor;
      const target = `proposal:${id}`;
      const j = await this.journal.open(tx, 'reopen', actor, target, 'reopening');
      const status = await this.writes.reopenProposal(j, id);
      const rejectionCleared = await this.writes.forgetRejection(j, row.kind, row.signature);
      const what = proposalLabel(row);
      const summary = status === 'pending'
        ? `Reopened ${what}: it is pending review again, and extraction may propose it again.`
        : `Took back the rejection of ${what}; no page supports it any more, so it is retired until extraction proposes it again.`;
      await this.journal.close(j, summary, { proposal: id, status, rejectionCleared });
      await this.audit.record(actor, 'kg.proposal.reopen', target, { journal: j.actionId, summary, status }, origin.ip, tx);
      return { actionId: j.actionId, status, summary, rejectionCleared };
    });
  }

  /** Forgets a rejected signature (one made when deleting an entity has no proposal to reopen). Undoable. */
  forgetRejection(kind: 'node' | 'edge', signature: string, origin: RequestOrigin): Promise<ReopenOutcome> {
    return this.journal.transaction(async (tx) => {
      const actor = origin.actor;
      const target = `rejection:${kind}:${signature}`;
      const j = await this.journal.open(tx, 'reopen', actor, target, 'forgetting a rejection');
      if (!(await this.writes.forgetRejection(j, kind, signature))) throw ReviewErrors.notFound(`A rejection of the ${kind} signature “${signature}”`);
      const summary = `Forgot the rejection of the ${kind} signature “${signature}”: extraction may propose it again.`;
      await this.journal.close(j, summary, { kind, signature });
      await this.audit.record(actor, 'kg.rejection.forget', target, { journal: j.actionId, summary }, origin.ip, tx);
      return { actionId: j.actionId, status: null, summary, rejectionCleared: true };
    });
  }

  bulk(request: BulkRequest, origin: RequestOrigin): Promise<ReviewOutcome> {
    const limit = Math.min(request.limit ?? BULK_DEFAULT_LIMIT, BULK_MAX_LIMIT);
    return this.journal.transaction(async (tx) => {
      let ids: string[];
      if (request.ids && request.ids.length > 0) {
        if (request.ids.length > limit) throw ReviewErrors.invalid(`A bulk action takes at most ${limit} proposals; ${request.ids.length} were selected.`);
        ids = [...new Set(request.ids)];
      } else {
        if (request.minConfidence === undefined) {
          throw ReviewErrors.invalid('Say which proposals: a selection (ids), or minConfidence (with an optional filter) for everything matching it.');
        }
        ids = await this.proposals.matchingIds({ ...request.filter, status: 'pending', minConfidence: request.minConfidence }, limit, tx);
      }
      const { rows, skipped } = await this.lockForBulk(ids, tx);
      if (request.action === 'reject') return this.applyRejection(rows, skipped, request.reason?.trim() || null, origin, tx, true);
      const planned = await this.plan(rows, new Map(), tx, false);
      return this.applyApproval(planned.items, [...skipped, ...planned.skipped], request.reason?.trim() || null, origin, tx, 'bulk');
    });
  }

  /**
   * Approves each entity proposal into the entity given for it (triage's "approve into existing", docs/review.md):
   * like an edit-then-approve with `intoEntityId` for each, in one undoable bulk action.
   */
  bulkInto(items: { id: string; intoEntityId: string }[], note: string | null, origin: RequestOrigin): Promise<ReviewOutcome> {
    return this.journal.transaction(async (tx) => {
      const into = new Map(items.map((i) => [i.id, i.intoEntityId]));
      const locked = await this.lockForBulk([...into.keys()], tx);
      // The entities are locked (and so kept) until the action ends; one merged away or deleted since the admin chose
      // it skips its proposal, as a bulk action skips what it cannot do, rather than failing the whole action.
      const targets = new Set((await this.curation.lockNodes([...new Set(into.values())], tx)).map((n) => n.id));
      const gone = locked.rows.filter((r) => r.kind === 'node' && !targets.has(into.get(r.id)!))
        .map((r) => ({ proposalId: r.id, reason: `entity ${into.get(r.id)} was merged or deleted meanwhile` }));
      const nodes = locked.rows.filter((r) => r.kind === 'node' && targets.has(into.get(r.id)!));
      const notNodes = locked.rows.filter((r) => r.kind !== 'node').map((r) => ({ proposalId: r.id, reason: 'a relation cannot be approved into an entity' }));
      const planned = await this.plan(nodes, new Map(nodes.map((r) => [r.id, { intoEntityId: into.get(r.id)! }])), tx, false);
      return this.applyApproval(planned.items, [...locked.skipped, ...notNodes, ...gone, ...planned.skipped], note, origin, tx, 'bulk');
    });
  }

  /** Locks the pending, visible proposals among `ids`; the others are skipped, with why. */
  private async lockForBulk(ids: string[], tx: EntityManager): Promise<{ rows: ProposalRow[]; skipped: { proposalId: string; reason: string }[] }> {
    await this.lockEntityNames(ids, tx);
    const locked = await this.proposals.lockPending(ids, tx);
    const visible = new Set(await this.proposals.visibleIds(locked.map((r) => r.id), tx));
    const lockedIds = new Set(locked.map((r) => r.id));
    const skipped = ids
      .filter((id) => !lockedIds.has(id) || !visible.has(id))
      .map((id) => ({ proposalId: id, reason: lockedIds.has(id) ? 'hidden by the inclusion policy' : 'not pending (already reviewed, retired, or no such proposal)' }));
    return { rows: locked.filter((r) => visible.has(r.id)), skipped };
  }

  /**
   * Before any proposal: the names of the entities they would approve (src/kg/variant-locks.ts). An extraction run of
   * a page that mentions one waits for this action, instead of deadlocking with it over the mentions and the
   * proposal, and then sees the entity (or the rejection) this action made; two bulk actions whose endpoints cross
   * take turns on the names before they lock any endpoint proposal. `editedNames`: the names an edit-then-approve
   * gives instead (taken in the same statement, so the order stays fixed): an entity created by hand, another
   * approval or a run that meets that name takes turns with this one, as they do for a stored name.
   */
  private async lockEntityNames(ids: string[], tx: EntityManager, editedNames: string[] = []): Promise<void> {
    await lockNameVariants([...(await this.proposals.entityNamesOf(ids, tx)), ...editedNames], tx);
  }

  /** Locks one pending proposal, or says why it cannot be reviewed. */
  private async lockOne(id: string, tx: EntityManager, editedNames: string[] = []): Promise<ProposalRow[]> {
    await this.lockEntityNames([id], tx, editedNames);
    const rows = await this.proposals.lockPending([id], tx);
    const current = rows[0] ?? (await this.proposals.get(id, tx));
    if (!current || !(await this.proposals.isVisible(id, tx))) throw ReviewErrors.notFound(`Proposal ${id}`);
    if (rows.length === 0) {
      const when = current.reviewedAt ? ` on ${new Date(current.reviewedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC` : '';
      const who = current.reviewedBy ? ` by ${current.reviewedBy}` : '';
      throw ReviewErrors.conflict(
        'already_reviewed',
        `Proposal ${id} was already reviewed: ${current.status}${who}${when}. Nothing was changed.`,
        { proposalId: id, status: current.status, reviewedBy: current.reviewedBy, reviewedAt: current.reviewedAt },
      );
    }
    return rows;
  }

  /**
   * Turns locked proposals (and the admin's edits) into batch items. An edge needs both endpoints: an entity, or a
   * pending node proposal that is approved with it; an edge without them is refused (single) or skipped (bulk).
   */
  private async plan(rows: ProposalRow[], edits: Map<string, ApprovalEdits>, tx: EntityManager, single: boolean): Promise<{ items: PlannedItem[]; skipped: { proposalId: string; reason: string }[] }> {
    const items: PlannedItem[] = [];
    for (const row of rows) items.push(await this.itemFor(row, edits.get(row.id) ?? {}, tx, null));
    const edges = items.filter((i) => i.kind === 'edge');
    if (edges.length === 0) return { items, skipped: [] };

    const endpointSigs = [...new Set(edges.flatMap((e) => [e.sourceSignature!, e.targetSignature!]))];
    // The entities at the ends are locked as they are resolved: a merge of one into the other waits for this action
    // (or has committed, and is what it reads), so the ends it checks below are the ends it writes.
    const resolved = await this.writes.lockResolvedSignatures(endpointSigs, tx);
    const inBatch = new Map<string, PlannedItem>();
    for (const item of items) if (item.kind === 'node') inBatch.set(item.origSignature, item).set(item.signature!, item);
    const missing = endpointSigs.filter((s) => !resolved.has(s) && !inBatch.has(s));
    const pendingEndpoints = await this.proposals.pendingNodeProposalsBySignature(missing, tx);
    // An endpoint whose proposal another admin approved while this action waited for its lock is an entity now (the
    // lock returned no pending row): it is read again, as it would be one action after the other.
    const lateSigs = missing.filter((sig) => !pendingEndpoints.some((row) => row.signature === sig));
    for (const [sig, nodeId] of await this.writes.lockResolvedSignatures(lateSigs, tx)) resolved.set(sig, nodeId);
    // In the order the edges name them (source, then target), for the summary.
    pendingEndpoints.sort((x, y) => endpointSigs.indexOf(x.signature) - endpointSigs.indexOf(y.signature));
    for (const row of pendingEndpoints) {
      const endpoint = await this.itemFor(row, {}, tx, null);
      endpoint.cascade = true;
      items.push(endpoint);
      inBatch.set(row.signature, endpoint);
    }
    const rejected = await this.writes.rejectedSignatures('node', endpointSigs.filter((s) => !resolved.has(s) && !inBatch.has(s)), tx);
    const where = (sig: string) => resolved.get(sig) ?? (inBatch.has(sig) ? `new:${inBatch.get(sig)!.signature}` : null);
    const skipped: { proposalId: string; reason: string }[] = [];
    const blocked = new Set<string>();
    for (const edge of edges) {
      const source = where(edge.sourceSignature!);
      const target = where(edge.targetSignature!);
      let reason: string | null = null;
      for (const [end, sig, name] of [['source', edge.sourceSignature!, edge.sourceLabel], ['target', edge.targetSignature!, edge.targetLabel]] as const) {
        if (where(sig) !== null) continue;
        reason = rejected.has(sig)
          ? `its ${end} “${name}” was rejected; create that entity first (or approve the edge between existing entities)`
          : `its ${end} “${name}” is neither an entity nor a pending proposal; create that entity first`;
        break;
      }
      if (!reason && source === target) reason = `it would join “${edge.sourceLabel}” to itself`;
      if (!reason) continue;
      if (single) throw ReviewErrors.conflict('edge_endpoint', `Edge proposal ${edge.proposalId} cannot be approved: ${reason}. Nothing was changed.`);
      blocked.add(edge.proposalId);
      skipped.push({ proposalId: edge.proposalId, reason });
    }
    // Endpoints are approved only for edges that go ahead.
    const needed = new Set(items.filter((i) => i.kind === 'edge' && !blocked.has(i.proposalId)).flatMap((i) => [i.sourceSignature, i.targetSignature]));
    const kept = items.filter((i) => !blocked.has(i.proposalId) && (!i.cascade || needed.has(i.origSignature)));
    for (const item of kept) {
      if (!item.cascade) continue;
      const edge = kept.find((e) => e.kind === 'edge' && (e.sourceSignature === item.origSignature || e.targetSignature === item.origSignature));
      item.withEdge = edge?.proposalId ?? null;
    }
    return { items: kept, skipped };
  }

  private async itemFor(row: ProposalRow, edits: ApprovalEdits, tx: EntityManager, withEdge: string | null): Promise<PlannedItem> {
    if (row.kind === 'node') {
      let name = (edits.name ?? row.name ?? '').trim();
      let type = edits.type ?? row.type ?? '';
      if (edits.type !== undefined && !isEntityType(edits.type)) throw ReviewErrors.invalid(`“${edits.type}” is not an entity type; use one of: ${REVIEW_TYPES.join(', ')}.`);
      if (name === '') throw ReviewErrors.invalid('The name may not be empty.');
      // The entity's signature is its name's and type's. A pending proposal's may be a variant's (the spelling that
      // proposed it first, before a better-scored one named it); approval maps that one to the entity as well.
      let signature = nodeSignature(name, type);
      let intoNodeId: string | null = null;
      if (edits.intoEntityId) {
        const [into] = await this.curation.lockNodes([edits.intoEntityId], tx);
        if (!into) throw ReviewErrors.notFound(`Entity ${edits.intoEntityId}`);
        ({ id: intoNodeId, name, type, signature } = into);
      }
      return {
        proposalId: row.id, kind: 'node', cascade: false, withEdge, origSignature: row.signature, origName: row.name,
        signature, name, type, description: (edits.description ?? row.description ?? '').trim(), intoNodeId,
        sourceSignature: null, predicate: null, targetSignature: null,
        label: `“${name}” (${type})`, sourceLabel: '', targetLabel: '',
      };
    }
    if (edits.predicate !== undefined && !isPredicate(edits.predicate)) {
      throw ReviewErrors.invalid(`“${edits.predicate}” is not a predicate; use one of: ${REVIEW_PREDICATES.join(', ')}.`);
    }
    const swap = edits.swapDirection === true;
    const predicate = edits.predicate ?? row.predicate!;
    const [sourceSignature, targetSignature] = swap ? [row.targetSignature!, row.sourceSignature!] : [row.sourceSignature!, row.targetSignature!];
    const [sourceName, targetName] = swap ? [row.targetName, row.sourceName] : [row.sourceName, row.targetName];
    const nameOf = (name: string | null, sig: string) => name ?? sig;
    return {
      proposalId: row.id, kind: 'edge', cascade: false, withEdge, origSignature: row.signature, origName: null,
      signature: null, name: null, type: null, description: '', intoNodeId: null, sourceSignature, predicate, targetSignature,
      label: `“${nameOf(sourceName, sourceSignature)}” ${predicate} “${nameOf(targetName, targetSignature)}”`,
      sourceLabel: nameOf(sourceName, sourceSignature), targetLabel: nameOf(targetName, targetSignature),
    };
  }

  private async applyApproval(
    items: PlannedItem[],
    skipped: { proposalId: string; reason: string }[],
    note: string | null,
    origin: RequestOrigin,
    tx: EntityManager,
    mode: 'approve' | 'edit-approve' | 'bulk',
  ): Promise<ReviewOutcome> {
    if (items.length === 0) return { actionId: null, status: 'approved', summary: 'Nothing to approve.', items: [], skipped };
    const actor = origin.actor;
    const first = items.find((i) => !i.cascade)!;
    const target = mode === 'bulk' ? null : `proposal:${first.proposalId}`;
    const j = await this.journal.open(tx, mode === 'bulk' ? 'bulk_approve' : 'approve', actor, target, 'approving');
    await this.writes.loadBatch(items, tx);
    await this.writes.markReviewed(j, 'approved', actor.name, note);
    const createdNodes = items.some((i) => i.kind === 'node') ? await this.writes.approveNodes(j, actor.name, 'extracted') : [];
    if (items.some((i) => i.kind === 'edge')) {
      const endpoints = await this.writes.resolveEdgeEndpoints(tx);
      const unresolved = endpoints.filter((e) => !e.sourceNodeId || !e.targetNodeId);
      // An endpoint planned as an entity was deleted since (by an action that committed meanwhile): decide again.
      if (unresolved.length > 0) throw new StaleReviewRead(`edge proposals without endpoints after planning: ${unresolved.map((e) => e.proposalId).join(', ')}`);
      // Ends planned apart that are one node now (planning locks them, so this is only a safeguard): decide again,
      // and planning refuses or skips the edge as one that would join an entity to itself.
      const joined = endpoints.filter((e) => e.sourceNodeId === e.targetNodeId);
      if (joined.length > 0) throw new StaleReviewRead(`edge proposals whose endpoints became one node after planning: ${joined.map((e) => e.proposalId).join(', ')}`);
      await this.writes.approveEdges(j, actor.name, 'extracted');
    }
    await this.embed(j, createdNodes);
    const outcomes = await this.writes.outcomes(tx);
    const created = new Set(createdNodes);
    const byId = new Map(items.map((i) => [i.proposalId, i]));
    const approved: ApprovedItem[] = outcomes.map((o: BatchOutcome) => ({
      proposalId: o.proposalId,
      kind: o.kind,
      withEdge: byId.get(o.proposalId)?.withEdge ?? null,
      nodeId: o.nodeId,
      edgeId: o.edgeId,
      createdEntity: o.nodeId !== null && created.has(o.nodeId),
    }));
    const summary = this.approvalSummary(items, approved, mode);
    await this.journal.close(j, summary, { mode, note, proposals: approved.map((a) => a.proposalId), skipped: skipped.length });
    await this.audit.record(actor, mode === 'bulk' ? 'kg.proposal.bulk_approve' : `kg.proposal.${mode === 'edit-approve' ? 'edit_approve' : 'approve'}`, target, {
      journal: j.actionId, summary, approved: approved.length, skipped: skipped.length,
    }, origin.ip, tx);
    return { actionId: j.actionId, status: 'approved', summary, items: approved, skipped };
  }

  private async applyRejection(rows: ProposalRow[], skipped: { proposalId: string; reason: string }[], reason: string | null, origin: RequestOrigin, tx: EntityManager, bulk: boolean): Promise<ReviewOutcome> {
    if (rows.length === 0) return { actionId: null, status: 'rejected', summary: 'Nothing to reject.', items: [], skipped };
    const actor = origin.actor;
    const target = bulk ? null : `proposal:${rows[0].id}`;
    const j = await this.journal.open(tx, bulk ? 'bulk_reject' : 'reject', actor, target, 'rejecting');
    await this.writes.loadBatch(rows.map((r) => ({
      proposalId: r.id, kind: r.kind, cascade: false, origSignature: r.signature, origName: r.name, signature: null, name: null,
      type: null, description: '', intoNodeId: null, sourceSignature: null, predicate: null, targetSignature: null,
    })), tx);
    await this.writes.markReviewed(j, 'rejected', actor.name, reason);
    await this.writes.rememberRejections(j, actor.name, reason);
    const summary = bulk
      ? `Rejected ${rows.length} proposal${rows.length === 1 ? '' : 's'}${reason ? ` (“${reason}”)` : ''}; they will not be proposed again.`
      : `Rejected ${proposalLabel(rows[0])}${reason ? ` (“${reason}”)` : ''}; it will not be proposed again.`;
    await this.journal.close(j, summary, { reason, proposals: rows.map((r) => r.id), skipped: skipped.length });
    await this.audit.record(actor, bulk ? 'kg.proposal.bulk_reject' : 'kg.proposal.reject', target, {
      journal: j.actionId, summary, rejected: rows.length, reason,
    }, origin.ip, tx);
    return {
      actionId: j.actionId,
      status: 'rejected',
      summary,
      items: rows.map((r) => ({ proposalId: r.id, kind: r.kind, withEdge: null, nodeId: null, edgeId: null, createdEntity: false })),
      skipped,
    };
  }

  private async embed(j: ActionJournal, nodeIds: string[]): Promise<void> {
    const hook = this.embeddings;
    if (!hook || nodeIds.length === 0) return;
    await this.curation.journalEmbeddings(j, nodeIds, () => hook.embedNodes(nodeIds, j.tx));
  }

  private approvalSummary(items: PlannedItem[], approved: ApprovedItem[], mode: 'approve' | 'edit-approve' | 'bulk'): string {
    const byId = new Map(items.map((i) => [i.proposalId, i]));
    const endpoints = items.filter((i) => i.cascade);
    const withEndpoints = endpoints.length > 0
      ? `; its pending endpoint${endpoints.length === 1 ? '' : 's'} ${endpoints.map((e) => e.label).join(' and ')} ${endpoints.length === 1 ? 'was' : 'were'} approved with it`
      : '';
    if (mode !== 'bulk') {
      const main = items.find((i) => !i.cascade)!;
      const outcome = approved.find((a) => a.proposalId === main.proposalId);
      const how = main.kind === 'node'
        ? (outcome?.createdEntity ? ' as a new entity' : ' into the existing entity')
        : '';
      const edited = mode === 'edit-approve' ? ' (edited)' : '';
      return `Approved ${main.kind} ${main.label}${edited}${how}${withEndpoints}.`;
    }
    const nodes = approved.filter((a) => a.kind === 'node' && !byId.get(a.proposalId)?.cascade).length;
    const edges = approved.filter((a) => a.kind === 'edge').length;
    const extra = endpoints.length > 0 ? `, and ${endpoints.length} pending endpoint${endpoints.length === 1 ? '' : 's'} the edges needed` : '';
    return `Approved ${nodes + edges} proposal${nodes + edges === 1 ? '' : 's'} (${nodes} node${nodes === 1 ? '' : 's'}, ${edges} edge${edges === 1 ? '' : 's'})${extra}.`;
  }
}

/** How a summary names a proposal: `node “Ada” (person)`, `edge “Ada” uses “PostgreSQL”`. */
function proposalLabel(r: ProposalRow): string {
  return r.kind === 'node' ? `node “${r.name}” (${r.type})` : `edge “${r.sourceName ?? r.sourceSignature}” ${r.predicate} “${r.targetName ?? r.targetSignature}”`;
}
