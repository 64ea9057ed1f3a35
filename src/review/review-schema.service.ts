import { Injectable } from '@nestjs/common';
import { EntitiesRepository } from '../curation/entities.repository.js';
import { ProposalsRepository } from './proposals.repository.js';
import { REVIEW_PREDICATES, REVIEW_TYPES } from '../admin/review-vocabulary.js';

export interface ReviewSchema {
  types: { name: string; entities: number; pending: number }[];
  predicates: { name: string; edges: number; pending: number }[];
  /** Types or predicates found in the graph that are not in the vocabulary (e.g. written before it changed). */
  outside: { types: string[]; predicates: string[] };
}

/** The closed vocabularies of the graph (src/extractors/extraction.types.ts), with how much of the graph uses each term. */
@Injectable()
export class ReviewSchemaService {
  constructor(
    private readonly entities: EntitiesRepository,
    private readonly proposals: ProposalsRepository,
  ) {}

  async describe(): Promise<ReviewSchema> {
    const { types, predicates } = await this.entities.vocabularyCounts();
    const pending = await this.proposals.pendingCounts();
    const pendingOf = (kind: 'node' | 'edge', key: string) => pending.find((p) => p.kind === kind && p.key === key)?.n ?? 0;
    return {
      types: REVIEW_TYPES.map((name) => ({ name, entities: types.get(name) ?? 0, pending: pendingOf('node', name) })),
      predicates: REVIEW_PREDICATES.map((name) => ({ name, edges: predicates.get(name) ?? 0, pending: pendingOf('edge', name) })),
      outside: {
        types: [...types.keys(), ...pending.filter((p) => p.kind === 'node').map((p) => p.key)].filter((t) => !REVIEW_TYPES.includes(t)),
        predicates: [...predicates.keys(), ...pending.filter((p) => p.kind === 'edge').map((p) => p.key)].filter((p) => !REVIEW_PREDICATES.includes(p)),
      },
    };
  }
}
