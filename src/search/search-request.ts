import { ForbiddenException } from '@nestjs/common';
import { roleAtLeast, type Actor } from '../auth/actor.js';
import type { SearchQueryDto } from './search.dto.js';
import type { SearchOptions } from './search.service.js';

/** The service options a search request asks for; the admins' bypass of the soft exclusion must be explicit and earned. */
export function searchOptionsOf(query: SearchQueryDto, actor: Actor): SearchOptions {
  const includeExcluded = query.includeExcluded === 'true';
  if (includeExcluded && !roleAtLeast(actor.role, 'admin')) {
    throw new ForbiddenException('includeExcluded=true is for admins: it lets soft-excluded pages feed the knowledge-graph signals.');
  }
  return { explain: query.explain === 'true', filters: { cluster: query.cluster, tag: query.tag, type: query.type }, includeExcluded };
}
