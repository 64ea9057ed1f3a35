import type { DataSource } from 'typeorm';

/** The connections of the data source's pool (node-postgres), for metrics: open, idle, and requests waiting for one. */
export interface PoolUsage {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options?: { max?: number };
}

/** null before the data source is initialised (or on a driver without a pool). */
export function poolUsage(dataSource: DataSource): PoolUsage | null {
  const pool = (dataSource.driver as unknown as { master?: PgPool }).master;
  if (!pool || typeof pool.totalCount !== 'number') return null;
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options?.max ?? 10 };
}
