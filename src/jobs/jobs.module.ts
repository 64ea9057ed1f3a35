import { Module } from '@nestjs/common';
import { JobQueue } from './job-queue.service.js';
import { JobWorker } from './job-worker.service.js';
import { JobsRepository } from './jobs.repository.js';

/**
 * Background jobs on pg-boss, in Kurate's own PostgreSQL (schema `pgboss`), through TypeORM's connection.
 * Feature modules define their queues and register handlers; main.ts starts the worker when KURATE_ROLE is worker or all.
 */
@Module({
  providers: [JobQueue, JobWorker, JobsRepository],
  exports: [JobQueue, JobWorker, JobsRepository],
})
export class JobsModule {}
