import { Inject, Injectable, Optional } from '@nestjs/common';
import { AuditService } from '../audit/audit.service.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { ReviewErrors } from './review-errors.js';
import { EXTRACTION_JOBS_HOOK, type ExtractionJobsHook, type ExtractionJobsStatus } from '../kg/review-hooks.js';

/** The extraction jobs as admins see them from review: status, and "retry the failed ones" (audited). */
@Injectable()
export class ReviewJobsService {
  constructor(
    private readonly audit: AuditService,
    @Optional() @Inject(EXTRACTION_JOBS_HOOK) private readonly jobs: ExtractionJobsHook | null = null,
  ) {}

  async status(): Promise<{ available: boolean; message: string | null } & ExtractionJobsStatus> {
    if (!this.jobs) {
      return { available: false, message: 'Extraction jobs are not wired into this server (no extraction job service is registered).', queues: [], failures: [] };
    }
    return { available: true, message: null, ...(await this.jobs.status()) };
  }

  async retryFailed(origin: RequestOrigin): Promise<{ retried: number }> {
    if (!this.jobs) throw ReviewErrors.conflict('jobs_unavailable', 'Extraction jobs are not wired into this server, so there is nothing to retry.');
    const result = await this.jobs.retryFailed();
    await this.audit.record(origin.actor, 'kg.jobs.retry_failed', 'jobs:extraction', result, origin.ip);
    return result;
  }
}
