import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../auth/actor.js';
import { shareReviewLock } from '../db/kg-purge-lock.js';
import { withProbePlans } from '../db/probe-plans.js';
import { returnedRows } from '../db/sql-rows.js';
import { sqlStateOf } from '../db/sql-state.js';
import { selfLoopConflict } from './review-errors.js';
import type { KgReviewActionEntity, ReviewActionKind } from './tables/kg-review-action.entity.js';
import { JOURNALED_TABLES, type JournaledTable } from './tables/kg-review-journal.entity.js';

/**
 * PostgreSQL errors after which a review action runs again: deadlock, serialization failure, unique violation, and
 * foreign-key violation (the action referred to an entity that another action merged or deleted meanwhile).
 */
const RETRIED = new Set(['40P01', '40001', '23505', '23503']);

/**
 * What an action read changed before it wrote (an entity it resolved a name to was deleted meanwhile, without a foreign
 * key to say so): the transaction runs again, like a deadlock's victim, and decides on what is there now.
 */
export class StaleReviewRead extends Error {}

/** Each journaled table's primary key: its columns and their SQL types (to read them back out of the jsonb key). */
const PRIMARY_KEYS: Record<JournaledTable, [string, 'bigint' | 'text'][]> = {
  kg_proposals: [['id', 'bigint']],
  kg_rejections: [['kind', 'text'], ['signature', 'text']],
  kg_nodes: [['id', 'bigint']],
  kg_node_signatures: [['signature', 'text']],
  kg_node_embeddings: [['node_id', 'bigint'], ['model', 'text']],
  kg_node_provenance: [['node_id', 'bigint'], ['proposal_id', 'bigint']],
  kg_edges: [['id', 'bigint']],
  kg_edge_provenance: [['edge_id', 'bigint'], ['proposal_id', 'bigint']],
  kg_mentions: [['id', 'bigint']],
};

/**
 * Columns that triggers derive from the row's other columns (a mention's sentence words, migration 0020, and its page,
 * 0029). Undo compares rows without them: an image journaled before such a column existed lacks it, and the row then
 * differs only in what it can always recompute. Restoring an image sets the row's other columns, and the triggers
 * derive these again.
 */
const DERIVED_COLUMNS: Partial<Record<JournaledTable, string[]>> = {
  kg_mentions: ['context', 'page_id'],
};

/** The row image `image` (SQL of a jsonb) without the table's derived columns. */
const withoutDerived = (table: JournaledTable, image: string) =>
  DERIVED_COLUMNS[table] ? `(${image} - '{${DERIVED_COLUMNS[table]!.join(',')}}'::text[])` : image;

const keyObject = (table: JournaledTable, alias = 't') =>
  `jsonb_build_object(${PRIMARY_KEYS[table].map(([c]) => `'${c}', ${alias}.${c}`).join(', ')})`;
/** SQL that matches row `t` of `table` to journal row `j`, usable by an index on the table's key. */
const keyJoin = (table: JournaledTable, t = 't', j = 'j') =>
  PRIMARY_KEYS[table].map(([c, type]) => `${t}.${c} = (${j}.row_key ->> '${c}')::${type}`).join(' AND ');

/** Shifts $1, $2… in a scope by `by`, so the scope's parameters can follow the statement's own. */
function shift(sql: string, by: number): string {
  return sql.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + by}`);
}

export interface JournalConflict {
  table: JournaledTable;
  key: Record<string, unknown>;
}

/** How many conflicting or dependent rows an undo's refusal names at most (conflicts, dependents). */
export const ROWS_NAMED_AT_MOST = 20;

/** A row that refers to one the undo would delete (and would go with it, ON DELETE CASCADE or SET NULL). */
export interface JournalDependent extends JournalConflict {
  refersTo: { table: JournaledTable; key: Record<string, unknown> };
}

/**
 * The foreign keys into rows an action may create (and so its undo delete), with which referring rows block the
 * undo whoever wrote them (`always`, SQL over alias `t`): the review decisions (a typed edge, provenance, a name
 * leading to the entity), which no one could get back. Derived rows (co-mentions, mention links, embeddings) block it
 * only when a later review action wrote them: extraction's go with the entity, and come back when it is approved again.
 */
const REFERENCES: { parent: JournaledTable; child: JournaledTable; column: string; always: string }[] = [
  { parent: 'kg_nodes', child: 'kg_edges', column: 'source_node_id', always: `t.kind = 'typed'` },
  { parent: 'kg_nodes', child: 'kg_edges', column: 'target_node_id', always: `t.kind = 'typed'` },
  { parent: 'kg_nodes', child: 'kg_node_provenance', column: 'node_id', always: 'true' },
  { parent: 'kg_nodes', child: 'kg_node_signatures', column: 'node_id', always: 'true' },
  { parent: 'kg_nodes', child: 'kg_node_embeddings', column: 'node_id', always: 'false' },
  { parent: 'kg_nodes', child: 'kg_mentions', column: 'node_id', always: 'false' },
  { parent: 'kg_edges', child: 'kg_edge_provenance', column: 'edge_id', always: 'true' },
  { parent: 'kg_proposals', child: 'kg_node_provenance', column: 'proposal_id', always: 'true' },
  { parent: 'kg_proposals', child: 'kg_edge_provenance', column: 'proposal_id', always: 'true' },
];

/** An open action: where its journal goes, inside the action's transaction. */
export class ActionJournal {
  constructor(
    readonly actionId: string,
    readonly tx: EntityManager,
  ) {}

  /**
   * Records the current image of the rows of `table` matching `where` (SQL over alias `t`, parameters $1…), before
   * the statement that may change or delete them. A row recorded earlier in the same action keeps its first image.
   */
  async before(table: JournaledTable, where: string, params: unknown[] = []): Promise<void> {
    await this.tx.query(
      `INSERT INTO kg_review_journal (action_id, table_name, row_key, before)
       SELECT $1, '${table}', ${keyObject(table)}, to_jsonb(t) FROM ${table} t WHERE ${shift(where, 1)}
       ON CONFLICT (action_id, table_name, row_key) DO NOTHING`,
      [this.actionId, ...params],
    );
  }

  /**
   * Records the rows of `table` matching `where` that are not journaled yet as created by this action. Call it after
   * the statement, with a scope whose existing rows were recorded by before() first.
   */
  async created(table: JournaledTable, where: string, params: unknown[] = []): Promise<void> {
    await this.tx.query(
      `INSERT INTO kg_review_journal (action_id, table_name, row_key, before)
       SELECT $1, '${table}', ${keyObject(table)}, NULL FROM ${table} t WHERE ${shift(where, 1)}
       ON CONFLICT (action_id, table_name, row_key) DO NOTHING`,
      [this.actionId, ...params],
    );
  }
}

/**
 * The undo journal (kg_review_actions, kg_review_journal): one action row per review action, and the before- and
 * after-image of every row it touched, written in the action's transaction. Undo checks that every touched row is
 * still exactly as the action left it, then puts the before-images back.
 */
@Injectable()
export class ReviewJournalRepository {
  private readonly columns = new Map<JournaledTable, string[]>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs a review action in one transaction: its changes, journal and audit entry commit together or not at all.
   * Two actions that touch the same rows in a different order can deadlock on PostgreSQL; the one it aborts is run
   * again (it starts over from scratch, so it sees what the other one did). So is one that broke a unique key: two
   * actions that each checked a name, an edge or a proposal free and then wrote it (two admins creating one entity
   * at once); run again, the second finds the first's row and answers as it would have one after the other (a 409
   * that names it), never a 500. So is one that wrote a row referring to an entity another action merged away or
   * deleted after this one had read it (an approval into an entity merged at that moment): run again, it finds the
   * entity the merge kept, or none. One that wrote an edge from an entity to itself (refused by the CHECK of
   * migration 0032) is a 409, never a 500.
   */
  async transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        // Review actions read the policy views too (is it visible?): the same per-row probes as the pages (probe-plans.ts).
        return await withProbePlans(this.dataSource, async (tx) => {
          // A purge of a cluster never interleaves with a review action (src/db/kg-purge-lock.ts).
          await shareReviewLock(tx);
          return work(tx);
        });
      } catch (error) {
        if (attempt >= 3 || !(RETRIED.has(sqlStateOf(error) ?? '') || error instanceof StaleReviewRead)) throw selfLoopConflict(error) ?? error;
      }
    }
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  async open(
    tx: EntityManager,
    action: ReviewActionKind,
    actor: Actor,
    target: string | null,
    summary: string,
    undoOf: string | null = null,
  ): Promise<ActionJournal> {
    const rows: { id: string }[] = await tx.query(
      `INSERT INTO kg_review_actions (action, actor_user_id, actor_name, target, summary, undo_of)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [action, actor.userId, actor.name, target, summary, undoOf],
    );
    return new ActionJournal(String(rows[0].id), tx);
  }

  /**
   * Writes the after-image of every journaled row (null when the action deleted it) and forgets the rows the action
   * did not change after all (scopes are supersets). Returns how many rows of each table it changed.
   */
  async close(journal: ActionJournal, summary: string, details: Record<string, unknown>, target?: string): Promise<Record<string, number>> {
    const { tx, actionId } = journal;
    for (const table of JOURNALED_TABLES) {
      await tx.query(
        `UPDATE kg_review_journal j SET after = to_jsonb(t) FROM ${table} t
          WHERE j.action_id = $1 AND j.table_name = '${table}' AND ${keyJoin(table)}`,
        [actionId],
      );
    }
    await tx.query('DELETE FROM kg_review_journal WHERE action_id = $1 AND before IS NOT DISTINCT FROM after', [actionId]);
    const counts: { table_name: string; rows: number }[] = await tx.query(
      'SELECT table_name, count(*)::int AS rows FROM kg_review_journal WHERE action_id = $1 GROUP BY table_name ORDER BY table_name',
      [actionId],
    );
    const touched = Object.fromEntries(counts.map((c) => [c.table_name, c.rows]));
    await tx.query('UPDATE kg_review_actions SET summary = $2, details = $3, target = coalesce($4, target) WHERE id = $1', [actionId, summary, { ...details, touched }, target ?? null]);
    return touched;
  }

  /** Locks the action row (two admins undoing at once: one waits, then sees it undone). */
  async lockAction(id: string, tx: EntityManager): Promise<KgReviewActionRow | null> {
    const rows: KgReviewActionRow[] = await tx.query(`SELECT ${ACTION_COLUMNS} FROM kg_review_actions a WHERE a.id = $1 FOR UPDATE`, [id]);
    return rows[0] ?? null;
  }

  /** Locks every row the action touched that still exists, so nothing changes them while the undo checks and restores. */
  async lockTouchedRows(actionId: string, tx: EntityManager): Promise<void> {
    for (const table of JOURNALED_TABLES) {
      const cols = PRIMARY_KEYS[table];
      await tx.query(
        `SELECT 1 FROM ${table} t
          WHERE (${cols.map(([c]) => `t.${c}`).join(', ')}) IN (
                SELECT ${cols.map(([c, type]) => `(j.row_key ->> '${c}')::${type}`).join(', ')}
                  FROM kg_review_journal j WHERE j.action_id = $1 AND j.table_name = '${table}')
          FOR UPDATE`,
        [actionId],
      );
    }
  }

  /**
   * The touched rows that are no longer as the action left them (at most `limit`), derived columns aside. A mention
   * whose chunk is gone (its page was edited since) is not a conflict: it cannot come back, and the rest can.
   */
  async conflicts(actionId: string, tx: EntityManager, limit = ROWS_NAMED_AT_MOST): Promise<JournalConflict[]> {
    const found: JournalConflict[] = [];
    for (const table of JOURNALED_TABLES) {
      const first = PRIMARY_KEYS[table][0][0];
      const goneChunk = table === 'kg_mentions'
        ? `AND NOT (t.${first} IS NULL AND NOT EXISTS (SELECT 1 FROM kg_content_chunks c WHERE c.id = (coalesce(j.before, j.after) ->> 'chunk_id')::bigint))`
        : '';
      const rows: { row_key: Record<string, unknown> }[] = await tx.query(
        `SELECT j.row_key FROM kg_review_journal j LEFT JOIN ${table} t ON ${keyJoin(table)}
          WHERE j.action_id = $1 AND j.table_name = '${table}'
            AND (CASE WHEN t.${first} IS NULL THEN NULL ELSE ${withoutDerived(table, 'to_jsonb(t)')} END) IS DISTINCT FROM ${withoutDerived(table, 'j.after')} ${goneChunk}
          LIMIT $2`,
        [actionId, limit - found.length],
      );
      found.push(...rows.map((r) => ({ table, key: r.row_key })));
      if (found.length >= limit) break;
    }
    return found;
  }

  /**
   * Rows that the action did not journal and that refer to a row it created, which its undo would delete (at most
   * `limit`): an edge approved later on an entity it approved, the provenance of a proposal approved later into an
   * entity it created. ON DELETE CASCADE would take them with it, and leave their proposals approved with nothing
   * behind them. Call it after lockTouchedRows, which holds the created rows against new references (see UndoService).
   */
  async dependents(actionId: string, tx: EntityManager, limit = ROWS_NAMED_AT_MOST): Promise<JournalDependent[]> {
    const found: JournalDependent[] = [];
    for (const { parent, child, column, always } of REFERENCES) {
      const rows: { key: Record<string, unknown>; parent_key: Record<string, unknown> }[] = await tx.query(
        `SELECT ${keyObject(child)} AS key, p.row_key AS parent_key
           FROM kg_review_journal p JOIN ${child} t ON t.${column} = (p.row_key ->> 'id')::bigint
          WHERE p.action_id = $1 AND p.table_name = '${parent}' AND p.before IS NULL AND p.after IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM kg_review_journal o
                             WHERE o.action_id = $1 AND o.table_name = '${child}' AND o.row_key = ${keyObject(child)})
            AND (${always} OR EXISTS (SELECT 1 FROM kg_review_journal l JOIN kg_review_actions a ON a.id = l.action_id
                                       WHERE l.action_id > $1 AND a.undone_at IS NULL
                                         AND l.table_name = '${child}' AND l.row_key = ${keyObject(child)}))
          LIMIT $2`,
        [actionId, limit - found.length],
      );
      found.push(...rows.map((r) => ({ table: child, key: r.key, refersTo: { table: parent, key: r.parent_key } })));
      if (found.length >= limit) break;
    }
    return found;
  }

  /** The later actions (not undone) that journaled any of these rows: what to undo first. */
  async laterActionsWriting(actionId: string, rows: JournalConflict[], tx: EntityManager): Promise<KgReviewActionRow[]> {
    return tx.query(
      `SELECT ${ACTION_COLUMNS} FROM kg_review_actions a
        WHERE a.id > $1 AND a.undone_at IS NULL
          AND EXISTS (SELECT 1 FROM kg_review_journal l
                       WHERE l.action_id = a.id
                         AND (l.table_name, l.row_key) IN (SELECT r ->> 'table', r -> 'key' FROM jsonb_array_elements($2::jsonb) r))
        ORDER BY a.id DESC LIMIT 10`,
      [actionId, JSON.stringify(rows.map((r) => ({ table: r.table, key: r.key })))],
    );
  }

  /** The later actions (not undone) that touched any row this action touched: what to undo first. */
  async laterActionsTouching(actionId: string, tx: EntityManager): Promise<KgReviewActionRow[]> {
    return tx.query(
      `SELECT ${ACTION_COLUMNS} FROM kg_review_actions a
        WHERE a.id > $1 AND a.undone_at IS NULL
          AND EXISTS (SELECT 1 FROM kg_review_journal l JOIN kg_review_journal j
                        ON j.table_name = l.table_name AND j.row_key = l.row_key AND j.action_id = $1
                       WHERE l.action_id = a.id)
        ORDER BY a.id DESC LIMIT 10`,
      [actionId],
    );
  }

  /** Starts the undo's own journal: the rows as they are now (= the undone action's after-images), to be restored. */
  async copyAfterImagesAsBefore(undo: ActionJournal, undoneActionId: string): Promise<void> {
    await undo.tx.query(
      `INSERT INTO kg_review_journal (action_id, table_name, row_key, before)
       SELECT $1, j.table_name, j.row_key, j.after FROM kg_review_journal j WHERE j.action_id = $2`,
      [undo.actionId, undoneActionId],
    );
  }

  /**
   * Puts back the before-images of the action's rows (its conflicts already checked): rows it deleted are inserted
   * (parents first), rows it changed are updated, rows it created are deleted (children first).
   */
  async restore(actionId: string, tx: EntityManager): Promise<{ inserted: number; updated: number; deleted: number }> {
    let inserted = 0;
    let updated = 0;
    let deleted = 0;
    const chunkStillThere = (table: JournaledTable) =>
      table === 'kg_mentions' ? `AND EXISTS (SELECT 1 FROM kg_content_chunks c WHERE c.id = (j.before ->> 'chunk_id')::bigint)` : '';
    for (const table of JOURNALED_TABLES) {
      const result: unknown[] = await tx.query(
        `INSERT INTO ${table}
         SELECT r.* FROM kg_review_journal j CROSS JOIN LATERAL jsonb_populate_record(NULL::${table}, j.before) r
          WHERE j.action_id = $1 AND j.table_name = '${table}' AND j.before IS NOT NULL AND j.after IS NULL ${chunkStillThere(table)}
         RETURNING 1`,
        [actionId],
      );
      inserted += result.length;
    }
    for (const table of JOURNALED_TABLES) {
      const keyColumns = new Set(PRIMARY_KEYS[table].map(([c]) => c));
      const set = (await this.columnsOf(table, tx)).filter((c) => !keyColumns.has(c)).map((c) => `${c} = r.${c}`).join(', ');
      const result = returnedRows(await tx.query(
        `UPDATE ${table} t SET ${set}
           FROM kg_review_journal j CROSS JOIN LATERAL jsonb_populate_record(NULL::${table}, j.before) r
          WHERE j.action_id = $1 AND j.table_name = '${table}' AND j.before IS NOT NULL AND j.after IS NOT NULL AND ${keyJoin(table)}
         RETURNING 1`,
        [actionId],
      ));
      updated += result.length;
    }
    for (const table of [...JOURNALED_TABLES].reverse()) {
      const result = returnedRows(await tx.query(
        `DELETE FROM ${table} t USING kg_review_journal j
          WHERE j.action_id = $1 AND j.table_name = '${table}' AND j.before IS NULL AND j.after IS NOT NULL AND ${keyJoin(table)}
         RETURNING 1`,
        [actionId],
      ));
      deleted += result.length;
    }
    return { inserted, updated, deleted };
  }

  async markUndone(actionId: string, by: string, tx: EntityManager): Promise<void> {
    await tx.query('UPDATE kg_review_actions SET undone_at = now(), undone_by = $2 WHERE id = $1', [actionId, by]);
  }

  /** An undo was itself undone: the action it undid stands again. */
  async markRedone(actionId: string, tx: EntityManager): Promise<void> {
    await tx.query('UPDATE kg_review_actions SET undone_at = NULL, undone_by = NULL WHERE id = $1', [actionId]);
  }

  /** Newest first, keyset by id. */
  async list(filter: { beforeId?: string; limit: number; action?: string }, db: EntityManager): Promise<KgReviewActionRow[]> {
    const params: unknown[] = [filter.limit];
    const where: string[] = [];
    if (filter.beforeId) where.push(`a.id < $${params.push(filter.beforeId)}`);
    if (filter.action) where.push(`a.action = $${params.push(filter.action)}`);
    return db.query(
      `SELECT ${ACTION_COLUMNS} FROM kg_review_actions a ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY a.id DESC LIMIT $1`,
      params,
    );
  }

  async get(id: string, db: EntityManager): Promise<KgReviewActionRow | null> {
    const rows: KgReviewActionRow[] = await db.query(`SELECT ${ACTION_COLUMNS} FROM kg_review_actions a WHERE a.id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** The journal of one action, for the audit view (capped). */
  async rows(actionId: string, limit: number, db: EntityManager): Promise<{ table_name: JournaledTable; row_key: Record<string, unknown>; before: Record<string, unknown> | null; after: Record<string, unknown> | null }[]> {
    return db.query(
      'SELECT table_name, row_key, before, after FROM kg_review_journal WHERE action_id = $1 ORDER BY id LIMIT $2',
      [actionId, limit],
    );
  }

  private async columnsOf(table: JournaledTable, tx: EntityManager): Promise<string[]> {
    let columns = this.columns.get(table);
    if (!columns) {
      const rows: { attname: string }[] = await tx.query(
        `SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
        [table],
      );
      columns = rows.map((r) => r.attname);
      this.columns.set(table, columns);
    }
    return columns;
  }
}

export type KgReviewActionRow = Pick<KgReviewActionEntity, 'id' | 'action' | 'actorName' | 'target' | 'summary' | 'details' | 'createdAt' | 'undoneAt' | 'undoneBy' | 'undoOf'> & {
  actorUserId: string | null;
};

const ACTION_COLUMNS = `a.id::text AS id, a.action, a.actor_user_id AS "actorUserId", a.actor_name AS "actorName", a.target, a.summary,
  a.details, a.created_at AS "createdAt", a.undone_at AS "undoneAt", a.undone_by AS "undoneBy", a.undo_of::text AS "undoOf"`;
