import { Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule, type TypeOrmModuleOptions } from '@nestjs/typeorm';
import type { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { nextTurn } from '../common/next-turn.js';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { KurateConfig } from '../config/kurate-config.js';
import { applicationNameOf } from './application-names.js';
import { DatabaseNotifications } from './database-notifications.js';
import { closeEmbeddedPostgres, EMBEDDED_POSTGRES, openEmbeddedPostgres } from './embedded-postgres.js';
import { migrate } from './migration-runner.js';

export { EMBEDDED_POSTGRES };

/**
 * Owns the embedded PGlite instance (when there is no DATABASE_URL) and closes it after TypeORM lets go, and the
 * process's one LISTEN connection (DatabaseNotifications) that caches of other modules subscribe to.
 */
@Module({
  providers: [
    {
      provide: EMBEDDED_POSTGRES,
      inject: [KurateConfig],
      useFactory: async (config: KurateConfig): Promise<PGlite | null> =>
        config.database.kind === 'embedded'
          ? openEmbeddedPostgres(config.database.dataDir, config.database.snapshot)
          : null,
    },
    DatabaseNotifications,
  ],
  exports: [EMBEDDED_POSTGRES, DatabaseNotifications],
})
export class EmbeddedPostgresModule implements OnApplicationShutdown {
  constructor(
    @Inject(EMBEDDED_POSTGRES) private readonly pglite: PGlite | null,
    private readonly config: KurateConfig,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.pglite && this.config.database.kind === 'embedded') await closeEmbeddedPostgres(this.pglite, this.config.database.dataDir);
  }
}

/** TypeORM's options for the configured database (also used by `node dist/migrate.js`). */
export function dataSourceOptions(config: KurateConfig, pglite: PGlite | null): TypeOrmModuleOptions {
  const common = { type: 'postgres' as const, autoLoadEntities: true, synchronize: false, migrationsRun: false, logging: false };
  if (config.database.kind === 'postgres') {
    return {
      ...common,
      url: config.database.url,
      ssl: config.database.ssl ? { rejectUnauthorized: false } : false,
      // JIT compilation is off for every connection: the search queries' cost estimates are high enough for the JIT
      // to compile them, which takes longer than running them (tens of milliseconds); nothing here gains from it.
      extra: { max: config.database.poolSize, options: '-c jit=off', application_name: applicationNameOf(config) },
    };
  }
  // PGlite is a single backend: one pooled connection, handed to node-postgres in-process.
  return { ...common, extra: { ...createPgConfig(yieldingBetweenMessages(pglite!)), max: 1 } };
}

/**
 * The embedded database as node-postgres's adapter sees it, with a turn of the event loop before each protocol
 * message. PGlite runs a statement synchronously in this process and the adapter answers in a microtask, so without
 * the turn a whole transaction (a save of a large page: 380 ms) ran as one stretch of the main thread, and no other
 * request was even read until it committed (bench/RESULTS.md, 2026-12-07 09:16). The adapter uses only these two
 * members of the instance it is given (@electric-sql/pglite/node-postgres), hence the cast.
 */
function yieldingBetweenMessages(pglite: PGlite): PGlite {
  const yielding: Pick<PGlite, 'waitReady' | 'execProtocolStream'> = {
    waitReady: pglite.waitReady,
    execProtocolStream: async (message, options) => {
      await nextTurn();
      // Closed during the turn, or closing (the server stopping, after the pool ended the connection that sent the
      // message): no one waits for the answer, and PGlite cannot give one.
      if (pglite.closed) return [];
      try {
        return await pglite.execProtocolStream(message, options);
      } catch (error) {
        if (pglite.closed) return [];
        throw error;
      }
    },
  };
  return yielding as PGlite;
}

@Module({
  imports: [
    EmbeddedPostgresModule,
    TypeOrmModule.forRootAsync({
      imports: [EmbeddedPostgresModule],
      inject: [KurateConfig, EMBEDDED_POSTGRES],
      useFactory: dataSourceOptions,
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options as DataSourceOptions).initialize();
        const applied = await migrate(dataSource);
        if (applied.length > 0) new Logger('Database').log(`Applied migrations: ${applied.join(', ')}`);
        return dataSource;
      },
    }),
  ],
})
export class DatabaseModule {}
