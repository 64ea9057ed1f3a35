import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import PgBoss from 'pg-boss';
import type { DataSource, EntityManager } from 'typeorm';
import { JOB_SCHEMA, jobDatabaseOf, transactionJobDatabase } from './job-database.js';
import { JobsRepository } from './jobs.repository.js';

/** A batch of at least this many jobs refreshes the job table's statistics (autovacuum's own threshold is 50 rows). */
const ANALYZE_AFTER_JOBS = 50;

export interface QueueDefinition {
  name: string;
  /** Retries after a failure before the job fails for good. */
  retryLimit: number;
  /** Delay before the first retry, in seconds; doubled (with jitter) for each further retry. */
  retryDelaySeconds: number;
  /** A job active for longer is abandoned (its worker is presumed dead) and retried. */
  expireInSeconds: number;
}

export interface FetchedJob<T = unknown> {
  id: string;
  name: string;
  data: T;
  retryCount: number;
  retryLimit: number;
  expireInSeconds: number;
}

export interface SendOptions {
  /** At most one queued job per key (the queues use pg-boss's `short` policy). */
  singletonKey?: string;
  /** Seconds to wait before the job may start. */
  startAfterSeconds?: number;
}

/**
 * The job queues, in the same PostgreSQL as everything else: pg-boss driven through TypeORM's connection (its `db`
 * option), so a job can be sent inside a page save's own transaction and commits or rolls back with it. Every role
 * (web, worker, all) starts it: web processes send, workers (JobWorker) fetch and work.
 */
@Injectable()
export class JobQueue implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly boss: PgBoss;
  private readonly queues = new Map<string, QueueDefinition>();
  private started: Promise<void> | null = null;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly jobs: JobsRepository,
  ) {
    // Maintenance (expiring jobs whose worker died, archiving finished ones) is run by JobWorker, on workers only.
    this.boss = new PgBoss({ db: jobDatabaseOf(dataSource), schema: JOB_SCHEMA, migrate: true, supervise: false, schedule: false });
    this.boss.on('error', (error: Error) => this.logger.error(`pg-boss: ${error.message}`));
  }

  async onModuleInit(): Promise<void> {
    await this.start();
  }

  start(): Promise<void> {
    this.started ??= this.boss.start().then(() => this.jobs.ensureFetchOrderIndex());
    return this.started;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = null;
    await this.boss.stop({ graceful: false, close: false, wait: true });
  }

  /** Creates the queue (or brings its retry settings up to date); call from a module's onModuleInit. */
  async defineQueue(definition: QueueDefinition): Promise<void> {
    await this.start();
    const options = {
      name: definition.name,
      policy: 'short' as const,
      retryLimit: definition.retryLimit,
      retryDelay: definition.retryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: definition.expireInSeconds,
    };
    if (await this.boss.getQueue(definition.name)) await this.boss.updateQueue(definition.name, options);
    else await this.boss.createQueue(definition.name, options);
    this.queues.set(definition.name, definition);
  }

  queueNames(): string[] {
    return [...this.queues.keys()];
  }

  definition(name: string): QueueDefinition {
    const found = this.queues.get(name);
    if (!found) throw new Error(`Unknown job queue "${name}"`);
    return found;
  }

  /** Sends one job; with `tx`, inside that open transaction. Returns null when an identical job (same key) is queued. */
  async send(queue: string, data: object, options: SendOptions = {}, tx?: EntityManager): Promise<string | null> {
    const definition = this.definition(queue);
    return this.boss.send(queue, data, {
      singletonKey: options.singletonKey,
      startAfter: options.startAfterSeconds,
      retryLimit: definition.retryLimit,
      retryDelay: definition.retryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: definition.expireInSeconds,
      ...(tx ? { db: transactionJobDatabase(tx) } : {}),
    } as PgBoss.SendOptions);
  }

  /**
   * Sends many jobs in one statement (with `tx`, inside that open transaction); jobs whose key is already queued are
   * skipped. A batch large enough to change the queue's shape also refreshes the planner's statistics of the job
   * table, so that the very next fetch already reads the queue in order through its index (see
   * JobsRepository.ensureFetchOrderIndex) instead of sorting it; autovacuum would do so only up to a minute later.
   */
  async sendMany(queue: string, jobs: { data: object; singletonKey?: string }[], tx?: EntityManager): Promise<void> {
    if (jobs.length === 0) return;
    const definition = this.definition(queue);
    await this.boss.insert(
      jobs.map((job) => ({
        name: queue,
        data: job.data,
        singletonKey: job.singletonKey,
        retryLimit: definition.retryLimit,
        retryDelay: definition.retryDelaySeconds,
        retryBackoff: true,
        expireInSeconds: definition.expireInSeconds,
      })),
      tx ? { db: transactionJobDatabase(tx) } : {},
    );
    if (jobs.length >= ANALYZE_AFTER_JOBS) await this.jobs.analyzeJobTable(tx);
  }

  async fetch<T>(queue: string, batchSize: number): Promise<FetchedJob<T>[]> {
    const jobs = await this.boss.fetch<T>(queue, { batchSize, includeMetadata: true });
    return (jobs ?? []).map((job) => ({
      id: job.id,
      name: job.name,
      data: job.data,
      retryCount: job.retryCount,
      retryLimit: job.retryLimit,
      expireInSeconds: Number((job as unknown as { expireInSeconds: string | number }).expireInSeconds),
    }));
  }

  async complete(queue: string, id: string, output?: object): Promise<void> {
    await this.boss.complete(queue, id, output);
  }

  /** Fails a job: pg-boss retries it later (with backoff) unless its retries are used up. */
  async fail(queue: string, id: string, output: object): Promise<void> {
    await this.boss.fail(queue, id, output);
  }

  /** Expires jobs whose worker died and archives old ones (each statement takes pg-boss's advisory lock). */
  async maintain(): Promise<void> {
    await this.boss.maintain();
  }
}
