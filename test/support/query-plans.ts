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
 * The first prepared statement whose text holds `marker` among those `run` makes the app send, caught on its way
 * through any of its query runners (the data source's own queries, transactions and TypeORM's finds all take one).
 */
export async function statementSentBy(t: TestApp, marker: string, run: () => Promise<unknown>): Promise<SentStatement> {
  const runner = t.dataSource.createQueryRunner();
  const query = vi.spyOn(Object.getPrototypeOf(runner), 'query');
  await runner.release();
  let statement: SentStatement | undefined;
  try {
    await run();
    // A prepared statement is passed as node-postgres's query config ({ name, text }).
    const call = query.mock.calls.find(([sql]) => typeof sql === 'object' && String((sql as { text: string }).text).includes(marker));
    statement = call && { text: (call[0] as { text: string }).text, values: (call[1] ?? []) as unknown[] };
  } finally {
    query.mockRestore();
  }
  expect(statement, `no statement holding "${marker}" was sent`).toBeDefined();
  return statement!;
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
