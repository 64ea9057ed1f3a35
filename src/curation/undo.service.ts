import { Injectable } from '@nestjs/common';
import { sqlStateOf } from '../db/sql-state.js';
import { AuditService } from '../audit/audit.service.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { ReviewErrors } from '../admin/review-errors.js';
import { ReviewJournalRepository, ROWS_NAMED_AT_MOST, type KgReviewActionRow } from '../admin/review-journal.repository.js';
import type { JournaledTable } from '../admin/tables/kg-review-journal.entity.js';

export interface UndoOutcome {
  /** The undo's own action (itself undoable: undoing it applies the original action again). */
  actionId: string;
  undid: string;
  summary: string;
  restored: { inserted: number; updated: number; deleted: number };
}

export interface ReviewActionView extends KgReviewActionRow {
  undoable: boolean;
}

/**
 * Undo of any review action from its journal: it is refused when any row the action touched has changed since
 * (the later actions that changed them are named, to be undone first); otherwise exactly the rows that were there
 * come back, in one transaction, journaled and audited like any other action.
 */
@Injectable()
export class UndoService {
  constructor(
    private readonly journal: ReviewJournalRepository,
    private readonly audit: AuditService,
  ) {}

  undo(actionId: string, origin: RequestOrigin): Promise<UndoOutcome> {
    return this.journal.transaction(async (tx) => {
      const action = await this.journal.lockAction(actionId, tx);
      if (!action) throw ReviewErrors.notFound(`Review action ${actionId}`);
      if (action.undoneAt) {
        throw ReviewErrors.conflict('already_undone', `Action ${actionId} (“${action.summary}”) was already undone by ${action.undoneBy}. Nothing was changed.`, {
          actionId, undoneBy: action.undoneBy, undoneAt: action.undoneAt,
        });
      }
      await this.journal.lockTouchedRows(actionId, tx);
      const conflicts = await this.journal.conflicts(actionId, tx);
      if (conflicts.length > 0) {
        const later = await this.journal.laterActionsTouching(actionId, tx);
        const first = later.length > 0
          ? undoFirst(later)
          : ' They were changed outside review (by extraction or a policy purge), so the old rows cannot come back exactly.';
        throw ReviewErrors.conflict(
          'changed_since',
          `Action ${actionId} cannot be undone: ${conflicts.length}${conflicts.length === ROWS_NAMED_AT_MOST ? '+' : ''} of the rows it touched have changed since.${first}`,
          { actionId, conflicts, laterActions: later.map((a) => ({ id: a.id, action: a.action, summary: a.summary })) },
        );
      }
      // Rows added since that refer to what the action created (an edge approved on an entity it approved): deleting
      // that would take them along. They are looked for in statements after lockTouchedRows, whose FOR UPDATE on the
      // created rows conflicts with the lock any write referring to them takes (the foreign key's FOR KEY SHARE, an
      // edge approval's lock on its endpoints): such a write that committed meanwhile is seen here, and one that
      // comes later waits for the undo, then finds the row gone.
      const dependents = await this.journal.dependents(actionId, tx);
      if (dependents.length > 0) {
        const later = await this.journal.laterActionsWriting(actionId, dependents, tx);
        const first = later.length > 0
          ? undoFirst(later)
          : ' They were not written by a review action that could be undone first.';
        const kinds = [...new Set(dependents.map((d) => DEPENDENT_KINDS[d.table]))].join(', ');
        throw ReviewErrors.conflict(
          'changed_since',
          `Action ${actionId} cannot be undone: ${dependents.length}${dependents.length === ROWS_NAMED_AT_MOST ? '+' : ''} rows added since (${kinds}) refer to what it created, and would be deleted with it.${first}`,
          { actionId, conflicts: [], dependents, laterActions: later.map((a) => ({ id: a.id, action: a.action, summary: a.summary })) },
        );
      }
      const actor = origin.actor;
      const undo = await this.journal.open(tx, 'undo', actor, `review-action:${actionId}`, 'undoing', actionId);
      await this.journal.copyAfterImagesAsBefore(undo, actionId);
      let restored: UndoOutcome['restored'];
      try {
        restored = await this.journal.restore(actionId, tx);
      } catch (error) {
        const code = sqlStateOf(error);
        if (code !== '23505' && code !== '23503') throw error;
        throw ReviewErrors.conflict('changed_since', `Action ${actionId} cannot be undone: the graph now holds a row that would clash with the one it would restore (${code === '23505' ? 'the same name, edge or pending proposal exists again' : 'an entity it refers to is gone'}). Nothing was changed.`, { actionId });
      }
      await this.journal.markUndone(actionId, actor.name, tx);
      if (action.action === 'undo' && action.undoOf) await this.journal.markRedone(action.undoOf, tx);
      const summary = action.action === 'undo' ? `Redid: ${stripUndo(action.summary)}` : `Undid #${actionId}: ${action.summary}`;
      await this.journal.close(undo, summary, { undid: actionId, restored });
      await this.audit.record(actor, 'kg.undo', `review-action:${actionId}`, { journal: undo.actionId, undid: actionId, action: action.action, summary, restored }, origin.ip, tx);
      return { actionId: undo.actionId, undid: actionId, summary, restored };
    });
  }

  async list(filter: { beforeId?: string; limit: number; action?: string }): Promise<ReviewActionView[]> {
    const rows = await this.journal.list(filter, this.journal.manager);
    return rows.map((r) => ({ ...r, undoable: r.undoneAt === null }));
  }

  async get(id: string): Promise<{ action: ReviewActionView; rows: Awaited<ReturnType<ReviewJournalRepository['rows']>> }> {
    const action = await this.journal.get(id, this.journal.manager);
    if (!action) throw ReviewErrors.notFound(`Review action ${id}`);
    return { action: { ...action, undoable: action.undoneAt === null }, rows: await this.journal.rows(id, 200, this.journal.manager) };
  }
}

/** How a refusal names the later actions to undo first, newest first. */
function undoFirst(later: KgReviewActionRow[]): string {
  return ` Undo ${later.length === 1 ? 'this later action' : 'these later actions'} first: ${later.map((a) => `#${a.id} (${a.summary})`).join('; ')}.`;
}

/** What a row that refers to a created row is, in a refusal. */
const DEPENDENT_KINDS: Record<JournaledTable, string> = {
  kg_proposals: 'proposals',
  kg_rejections: 'rejections',
  kg_nodes: 'entities',
  kg_node_signatures: 'names leading to an entity',
  kg_node_embeddings: 'embeddings',
  kg_node_provenance: 'approvals of entity proposals',
  kg_edges: 'edges',
  kg_edge_provenance: 'approvals of edge proposals',
  kg_mentions: 'mentions',
};

function stripUndo(summary: string): string {
  return summary.replace(/^Undid #\d+: /, '');
}
