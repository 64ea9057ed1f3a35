import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RequestOrigin } from '../auth/users.service.js';
import { ReviewErrors } from '../admin/review-errors.js';
import { BULK_DEFAULT_LIMIT, ReviewService, type ReviewOutcome } from './review.service.js';
import { TriageRepository, type TriageCandidate } from './triage.repository.js';

export const TRIAGE_GROUPS = ['same-as-approved', 'typed-relations', 'stated-by-links', 'generic-words'] as const;
export type TriageGroupId = (typeof TRIAGE_GROUPS)[number];

interface GroupDefinition {
  label: string;
  /** Why its proposals are together, in a sentence. */
  why: string;
  /** What its one action does. */
  action: 'approve-into' | 'approve' | 'reject';
  actionLabel: string;
  read: (repository: TriageRepository, limit: number, db: EntityManager, ids?: string[]) => Promise<TriageCandidate[]>;
  /** What the action would change for one proposal, in a sentence. */
  change: (c: TriageCandidate) => string;
}

/** The groups, in the order the queue shows them; a proposal belongs to the first group that takes it. */
const GROUPS: Record<TriageGroupId, GroupDefinition> = {
  'same-as-approved': {
    label: 'Probably the same as an approved entity',
    why: 'Their name is the name, or an alias, of an approved entity (case aside).',
    action: 'approve-into',
    actionLabel: 'Approve each into that entity',
    read: (r, limit, db, ids) => r.sameAsApproved(limit, db, ids),
    change: (c) => `“${c.name}” (${c.type}) joins the approved entity “${c.intoEntityName}” (${c.intoEntityType})${c.matchedBy === 'alias' ? ', whose alias it is' : ''}: its mentions and evidence go to that entity${c.name !== c.intoEntityName ? ', and the name becomes an alias' : ''}.`,
  },
  'typed-relations': {
    label: 'New typed relation between approved entities',
    why: 'A sentence states the relation, and both of its ends are approved entities already.',
    action: 'approve',
    actionLabel: 'Approve them all',
    read: (r, limit, db, ids) => r.typedBetweenApproved(limit, db, ids),
    change: (c) => `Adds the edge “${c.sourceEntityName}” ${c.predicate} “${c.targetEntityName}” between the two approved entities.`,
  },
  'stated-by-links': {
    label: 'Stated by the wiki’s own links',
    why: 'A “See also” link, or a link between a page and a page under it in the vault, states the relation; its ends are approved entities or pending proposals.',
    action: 'approve',
    actionLabel: 'Approve them all, with the entities they need',
    read: (r, limit, db, ids) => r.statedByLinks(limit, db, ids),
    change: (c) => `Adds the edge “${c.sourceEntityName}” ${c.predicate} “${c.targetEntityName}”${pendingEnds(c)}.`,
  },
  'generic-words': {
    label: 'Likely noise: generic word',
    why: 'One word that nothing links to or titles, and that this wiki writes in lower case at least as often as capitalised: an ordinary word.',
    action: 'reject',
    actionLabel: 'Reject them all',
    read: (r, limit, db, ids) => r.genericWords(limit, db, ids),
    change: (c) => `Rejects “${c.name}” (${c.type}): written ${c.lower} time${c.lower === 1 ? '' : 's'} in lower case, ${c.capitalised} capitalised; it will not be proposed again.`,
  },
};

/** `; approves the pending entity “X” with it`, for the ends of a relation that are pending proposals. */
function pendingEnds(c: TriageCandidate): string {
  const names = [c.sourcePending ? c.sourceEntityName : null, c.targetPending ? c.targetEntityName : null].filter((n): n is string => n !== null);
  if (names.length === 0) return ' between the two approved entities';
  return `; approves the pending ${names.length === 1 ? 'entity' : 'entities'} ${names.map((n) => `“${n}”`).join(' and ')} with it`;
}

export interface TriageItem {
  proposalId: string;
  kind: 'node' | 'edge';
  label: string;
  confidence: number;
  /** What the group's action would change for it. */
  change: string;
  intoEntityId: string | null;
}

export interface TriageGroup {
  id: TriageGroupId;
  label: string;
  why: string;
  action: GroupDefinition['action'];
  actionLabel: string;
  count: number;
  /** More than the limit match: the action takes the first `limit` (the preview lists them). */
  capped: boolean;
}

export interface TriagePreview extends TriageGroup {
  items: TriageItem[];
}

export interface TriageOutcome extends ReviewOutcome {
  group: TriageGroupId;
}

/**
 * Triage of the queue (docs/review.md): the pending proposals grouped by why they are probably right or probably
 * noise, each group with one action, previewed (a dry run that lists what would change) and then confirmed on exactly
 * the proposals the preview listed. The action is a bulk review action: one transaction, journaled, undoable, audited.
 */
@Injectable()
export class TriageService {
  constructor(
    private readonly repository: TriageRepository,
    private readonly review: ReviewService,
  ) {}

  /** Every group with its count (a proposal is counted in the first group that takes it). */
  async groups(): Promise<TriageGroup[]> {
    const previews = await this.repository.reading((db) => this.read(BULK_DEFAULT_LIMIT, db));
    return previews.map(({ items: _items, ...group }) => group);
  }

  /** One group's dry run: every proposal its action would take, and what it would change; `ids` narrows it. */
  async preview(id: string, ids?: string[]): Promise<TriagePreview> {
    const group = this.group(id);
    const previews = await this.repository.reading((db) => this.read(BULK_DEFAULT_LIMIT, db, ids));
    return previews.find((p) => p.id === group)!;
  }

  /**
   * Runs a group's action on the proposals the admin confirmed (`ids`, from the preview): those still in the group are
   * acted on in one bulk action; the others are skipped, with why.
   */
  async apply(id: string, ids: string[], note: string | null, origin: RequestOrigin): Promise<TriageOutcome> {
    const group = this.group(id);
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) throw ReviewErrors.invalid('Say which proposals: the ids the preview listed (confirm the preview).');
    if (wanted.length > BULK_DEFAULT_LIMIT) throw ReviewErrors.invalid(`A triage action takes at most ${BULK_DEFAULT_LIMIT} proposals; ${wanted.length} were sent.`);
    const preview = await this.preview(group, wanted);
    const members = new Map(preview.items.map((i) => [i.proposalId, i]));
    const skipped = wanted.filter((p) => !members.has(p)).map((p) => ({ proposalId: p, reason: `no longer in “${preview.label}” (reviewed meanwhile, or it changed)` }));
    const definition = GROUPS[group];
    const reason = note?.trim() || `triage: ${definition.label.toLowerCase()}`;
    const chosen = [...members.values()];
    let outcome: ReviewOutcome;
    if (chosen.length === 0) outcome = { actionId: null, status: definition.action === 'reject' ? 'rejected' : 'approved', summary: 'Nothing to do: none of them is in the group any more.', items: [], skipped: [] };
    else if (definition.action === 'reject') outcome = await this.review.bulk({ action: 'reject', ids: chosen.map((c) => c.proposalId), reason }, origin);
    else if (definition.action === 'approve') outcome = await this.review.bulk({ action: 'approve', ids: chosen.map((c) => c.proposalId), reason }, origin);
    else outcome = await this.review.bulkInto(chosen.map((c) => ({ id: c.proposalId, intoEntityId: c.intoEntityId! })), reason, origin);
    return { ...outcome, group, skipped: [...skipped, ...outcome.skipped] };
  }

  private group(id: string): TriageGroupId {
    if (!(TRIAGE_GROUPS as readonly string[]).includes(id)) throw ReviewErrors.notFound(`The triage group “${id}” (groups: ${TRIAGE_GROUPS.join(', ')})`);
    return id as TriageGroupId;
  }

  private async read(limit: number, db: EntityManager, ids?: string[]): Promise<TriagePreview[]> {
    const taken = new Set<string>();
    const out: TriagePreview[] = [];
    for (const id of TRIAGE_GROUPS) {
      const definition = GROUPS[id];
      // One more than the limit says whether it is capped; proposals an earlier group took are left out.
      const rows = (await definition.read(this.repository, limit + 1 + taken.size, db, ids)).filter((c) => !taken.has(c.proposalId));
      const items = rows.slice(0, limit).map((c) => ({
        proposalId: c.proposalId, kind: c.kind, label: labelOf(c), confidence: Number(c.confidence), change: definition.change(c), intoEntityId: c.intoEntityId,
      }));
      for (const item of items) taken.add(item.proposalId);
      out.push({
        id, label: definition.label, why: definition.why, action: definition.action, actionLabel: definition.actionLabel,
        count: items.length, capped: rows.length > limit, items,
      });
    }
    return out;
  }
}

function labelOf(c: TriageCandidate): string {
  return c.kind === 'node' ? `“${c.name}” (${c.type})` : `“${c.sourceName}” ${c.predicate} “${c.targetName}”`;
}
