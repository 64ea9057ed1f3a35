import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Metrics } from '../metrics/metrics.js';
import { ProposalsRepository } from './proposals.repository.js';

/** The review queue's size in /metrics: pending proposals by kind (node: entities, edge: relations). */
@Injectable()
export class ReviewMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly proposals: ProposalsRepository,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge({
      name: 'kurate_review_pending_proposals',
      help: 'Proposals waiting for review (what the inclusion policy lets admins see), by kind: node (entity) or edge (relation).',
      labelNames: ['kind'],
      collect: async () => {
        const counts = new Map((await this.proposals.pendingByKind()).map((row) => [row.kind, row.n]));
        return (['node', 'edge'] as const).map((kind) => ({ labels: { kind }, value: counts.get(kind) ?? 0 }));
      },
    });
  }
}
