import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { poolUsage } from '../db/pool-usage.js';
import { JobsRepository } from '../jobs/jobs.repository.js';
import { Metrics } from './metrics.js';

/** The gauges of the rooms below this one, read at each scrape: the job queues (pg-boss) and the database pool. */
@Injectable()
export class MetricsCollectors implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly jobs: JobsRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    // One query for the three job gauges of a scrape, however many queues there are.
    let pending: Promise<Awaited<ReturnType<JobsRepository['queueStats']>>> | null = null;
    const stats = () => {
      pending ??= this.jobs.queueStats().finally(() => setTimeout(() => (pending = null), 0));
      return pending;
    };
    this.metrics.gauge({
      name: 'kurate_job_queue_depth',
      help: 'Jobs per queue and state: waiting (created or retry) and active (being worked).',
      labelNames: ['queue', 'state'],
      collect: async () => (await stats()).flatMap((q) => [
        { labels: { queue: q.queue, state: 'waiting' }, value: q.waiting },
        { labels: { queue: q.queue, state: 'active' }, value: q.active },
      ]),
    });
    this.metrics.gauge({
      name: 'kurate_job_queue_oldest_waiting_seconds',
      help: 'Age of the oldest job per queue that could start now but has not (0 when none waits).',
      labelNames: ['queue'],
      collect: async () => (await stats()).map((q) => ({ labels: { queue: q.queue }, value: q.oldestSeconds })),
    });
    this.metrics.gauge({
      name: 'kurate_db_pool_connections',
      help: 'Database pool connections: open (total), idle, requests waiting for one, and the pool size (max).',
      labelNames: ['state'],
      collect: () => {
        const usage = poolUsage(this.dataSource);
        if (!usage) return [];
        return (['total', 'idle', 'waiting', 'max'] as const).map((state) => ({ labels: { state }, value: usage[state] }));
      },
    });
  }
}
