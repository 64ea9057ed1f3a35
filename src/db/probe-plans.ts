import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs the reads of one review page in a transaction that steers PostgreSQL to per-row index probes.
 *
 * The policy views (kg_visible_*, migration 0003) decide visibility with `NOT EXISTS (…) OR EXISTS (…)`. PostgreSQL
 * plans such an OR as a "hashed SubPlan" whenever the hash table fits in work_mem × hash_mem_multiplier, and then
 * hashes the whole of kg_proposal_support (or kg_mentions) on every request: ~350 ms at 200,000 support rows, to show
 * 50 proposals. Without room for the hash, it probes the indexes for the rows it actually reads (~1 ms). The reads of
 * a page touch at most some 10,000 rows (an entity's mentions), so they run with work_mem 1 MB, where those sorts
 * still fit but a hash of a whole support or mentions table does not.
 */
export function withProbePlans<T>(dataSource: DataSource, work: (db: EntityManager) => Promise<T>): Promise<T> {
  return dataSource.transaction(async (db) => {
    await db.query(`SELECT set_config('work_mem', '1MB', true), set_config('hash_mem_multiplier', '1', true)`);
    return work(db);
  });
}
