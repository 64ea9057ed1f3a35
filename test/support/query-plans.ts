import { expect, vi } from 'vitest';
import type { EntityManager } from 'typeorm';
import type { TestApp } from './test-app.js';

/** A node of PostgreSQL's JSON plan (EXPLAIN (FORMAT JSON)), with the fields the plan tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

/** A plan's nodes, the root first. */
export const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

export interface SentStatement {
  text: string;
  values: unknown[];
}

/**
 * Every statement the app sends while `run` runs, in order, caught on its way through any of its query runners (the
 * data source's own queries, transactions and TypeORM's finds all take one). `prepared`: sent as a prepared statement
 * (node-postgres's query config, `{ name, text }`).
 */
export async function statementsSentBy(t: TestApp, run: () => Promise<unknown>): Promise<(SentStatement & { prepared: boolean })[]> {
  const runner = t.dataSource.createQueryRunner();
  const query = vi.spyOn(Object.getPrototypeOf(runner), 'query');
  await runner.release();
  try {
    await run();
    return query.mock.calls.map(([sql, values]) => {
      const prepared = typeof sql === 'object';
      return { text: prepared ? String((sql as { text: string }).text) : String(sql), values: (values ?? []) as unknown[], prepared };
    });
  } finally {
    query.mockRestore();
  }
}

/** The first prepared statement whose text holds `marker` among those `run` makes the app send. */
export async function statementSentBy(t: TestApp, marker: string, run: () => Promise<unknown>): Promise<SentStatement> {
  const found = (await statementsSentBy(t, run)).find((s) => s.prepared && s.text.includes(marker));
  expect(found, `no statement holding "${marker}" was sent`).toBeDefined();
  return { text: found!.text, values: found!.values };
}

const planOfRow = (row: Record<string, unknown>): PlanNode =>
  ((typeof row['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row['QUERY PLAN']) as { Plan: PlanNode }[])[0].Plan;

/**
 * The statement's plan with its values. With `genericAs` (its parameters' types), the generic plan instead: the one
 * plan PostgreSQL keeps for every run of a prepared statement once it stops planning each run with its values
 * (`plan_cache_mode = force_generic_plan`, for this transaction only).
 */
export function planOf(t: TestApp, statement: SentStatement, genericAs?: string[]): Promise<PlanNode> {
  return t.dataSource.transaction(async (db: EntityManager) => {
    if (!genericAs) return planOfRow((await db.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values))[0]);
    await db.query(`SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`);
    await db.query(`PREPARE kurate_plan_probe(${genericAs.join(', ')}) AS ${statement.text}`);
    try {
      // EXECUTE takes no bind parameters: the values are spelt as literals of their types.
      const literals = genericAs.map((type) => `%L::${type}`).join(', ');
      const [{ sql }] = await db.query(`SELECT format('EXPLAIN (FORMAT JSON) EXECUTE kurate_plan_probe(${literals})', ${genericAs.map((type, i) => `$${i + 1}::${type}`).join(', ')}) AS sql`, statement.values);
      return planOfRow((await db.query(sql))[0]);
    } finally {
      await db.query('DEALLOCATE kurate_plan_probe');
    }
  });
}
