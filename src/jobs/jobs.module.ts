import { Module } from '@nestjs/common';
import { TableMaintenance } from '../db/table-maintenance.js';
import { JobLeases } from './job-leases.js';
import { JobQueue } from './job-queue.service.js';
import { JobWorker } from './job-worker.service.js';
import { JobsRepository } from './jobs.repository.js';
import { WorkerProcess } from './worker-process.js';

/**
 * Background jobs on pg-boss, in Kurate's own PostgreSQL (schema `pgboss`), through TypeORM's connection.
 * Feature modules define their queues and register handlers; main.ts starts the worker when KURATE_ROLE is worker or all
 * (with `all` on PostgreSQL, by default in a worker process of lower priority: WorkerProcess). Workers also vacuum
 * Kurate's tables where the database does not (TableMaintenance).
 */
@Module({
  providers: [JobQueue, JobWorker, JobLeases, JobsRepository, WorkerProcess, TableMaintenance],
  exports: [JobQueue, JobWorker, JobsRepository, WorkerProcess],
})
export class JobsModule {}
