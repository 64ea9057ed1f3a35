import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

/** Opens (or creates on first start) the embedded PostgreSQL: PGlite with pgvector, in-process. */
export async function openEmbeddedPostgres(dataDir: string, snapshot?: Blob): Promise<PGlite> {
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  return PGlite.create(inMemory ? undefined : dataDir, {
    extensions: { vector, pg_trgm },
    ...(snapshot ? { loadDataDir: snapshot } : {}),
  });
}
