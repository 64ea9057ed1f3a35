import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

/** pg-boss keeps its tables in this schema of Kurate's database (created and migrated by pg-boss itself). */
export const JOB_SCHEMA = 'pgboss';

/** What pg-boss calls to run SQL (its `db` option): text with $n placeholders, answered with the rows. */
export interface JobDatabase {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/**
 * pg-boss on Kurate's own connection: every statement goes through TypeORM's data source, so the jobs live in the
 * same PostgreSQL (and, on the embedded database, share its single connection) instead of a second pool.
 */
export function jobDatabaseOf(dataSource: DataSource): JobDatabase {
  return {
    async executeSql(text, values) {
      const runner = dataSource.createQueryRunner();
      try {
        return await rowsOf(runner, text, values);
      } finally {
        await runner.release();
      }
    },
  };
}

/** The same, inside an open transaction: a job sent with it commits (or rolls back) with that transaction. */
export function transactionJobDatabase(tx: EntityManager): JobDatabase {
  const runner = tx.queryRunner;
  if (!runner || !runner.isTransactionActive) throw new Error('transactionJobDatabase needs the EntityManager of an open transaction');
  return { executeSql: (text, values) => rowsOf(runner, text, values) };
}

async function rowsOf(runner: QueryRunner, text: string, values?: unknown[]): Promise<{ rows: any[] }> {
  const result = await runner.query(text, values, true);
  return { rows: result.records ?? [] };
}
