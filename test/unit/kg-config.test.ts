import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/kurate-config.js';
import { failureOf, JobError } from '../../src/jobs/job-failure.js';
import { ExtractorError } from '../../src/llm-client/llm-errors.js';

describe('extraction configuration', () => {
  it('defaults: role all, threshold 0.6, the backend’s limits, 5 retries from 30 s, 30-minute jobs, 2-second polls, jobs in this process (embedded)', () => {
    expect(loadConfig({}).extraction).toEqual({
      role: 'all', confidenceThreshold: 0.6, limits: { concurrency: 4, ratePerMinute: 0 }, retryLimit: 5, retryDelaySeconds: 30, jobTimeoutSeconds: 1800, pollSeconds: 2,
      workerProcess: false, workerNice: 10,
      calibration: { minReviewed: 200, refitEvery: 50 },
    });
  });

  it('on PostgreSQL with role all, works the jobs in a worker process of lower priority unless told not to', () => {
    const pg = { DATABASE_URL: 'postgres://db/wiki' };
    expect(loadConfig(pg).extraction).toMatchObject({ role: 'all', workerProcess: true, workerNice: 10 });
    expect(loadConfig({ ...pg, KURATE_WORKER_PROCESS: 'false' }).extraction.workerProcess).toBe(false);
    expect(loadConfig({ ...pg, KURATE_WORKER_NICE: '19' }).extraction.workerNice).toBe(19);
    // A web or worker process starts none: the operator runs the workers.
    expect(loadConfig({ ...pg, KURATE_ROLE: 'web' }).extraction.workerProcess).toBe(false);
    expect(loadConfig({ ...pg, KURATE_ROLE: 'worker' }).extraction.workerProcess).toBe(false);
  });

  it('takes each backend’s own default limits, and the variables over them', () => {
    expect(loadConfig({ KURATE_EXTRACTOR: 'ollama' }).extraction.limits).toEqual({ concurrency: 1, ratePerMinute: 0 });
    expect(loadConfig({ KURATE_EXTRACTOR: 'anthropic', ANTHROPIC_API_KEY: 'sk-test' }).extraction.limits).toEqual({ concurrency: 4, ratePerMinute: 50 });
    expect(loadConfig({ KURATE_EXTRACTOR: 'ollama', KURATE_EXTRACT_CONCURRENCY: '3', KURATE_EXTRACT_RATE_PER_MINUTE: '120' }).extraction.limits).toEqual({ concurrency: 3, ratePerMinute: 120 });
  });

  it('reads every variable', () => {
    const { extraction } = loadConfig({
      DATABASE_URL: 'postgres://db/wiki', KURATE_ROLE: 'worker', KURATE_KG_CONFIDENCE_THRESHOLD: '0.75', KURATE_EXTRACT_RETRY_LIMIT: '0',
      KURATE_EXTRACT_RETRY_DELAY_SECONDS: '5', KURATE_EXTRACT_JOB_TIMEOUT_SECONDS: '60', KURATE_JOB_POLL_SECONDS: '0.5',
      KURATE_CALIBRATION_MIN_REVIEWED: '40', KURATE_CALIBRATION_REFIT_EVERY: '10',
    });
    expect(extraction).toMatchObject({
      role: 'worker', confidenceThreshold: 0.75, retryLimit: 0, retryDelaySeconds: 5, jobTimeoutSeconds: 60, pollSeconds: 0.5, calibration: { minReviewed: 40, refitEvery: 10 },
    });
  });

  it.each([
    [{ KURATE_ROLE: 'both' }, /KURATE_ROLE must be one of web, worker, all \(got "both"\)/],
    [{ KURATE_ROLE: 'web' }, /KURATE_ROLE=web needs DATABASE_URL .* the embedded database belongs to one process/],
    [{ KURATE_KG_CONFIDENCE_THRESHOLD: '1.5' }, /KURATE_KG_CONFIDENCE_THRESHOLD must not be greater than 1/],
    [{ KURATE_CALIBRATION_MIN_REVIEWED: '5' }, /KURATE_CALIBRATION_MIN_REVIEWED must not be less than 10/],
    [{ KURATE_CALIBRATION_REFIT_EVERY: 'often' }, /KURATE_CALIBRATION_REFIT_EVERY must be a whole number of reviews/],
    [{ KURATE_KG_CONFIDENCE_THRESHOLD: 'high' }, /KURATE_KG_CONFIDENCE_THRESHOLD must be a number between 0 and 1/],
    [{ KURATE_EXTRACT_CONCURRENCY: '0' }, /KURATE_EXTRACT_CONCURRENCY must not be less than 1/],
    [{ KURATE_EXTRACT_RATE_PER_MINUTE: '-1' }, /KURATE_EXTRACT_RATE_PER_MINUTE must not be less than 0/],
    [{ KURATE_EXTRACT_RETRY_LIMIT: 'many' }, /KURATE_EXTRACT_RETRY_LIMIT must be a whole number of retries/],
    [{ KURATE_EXTRACT_JOB_TIMEOUT_SECONDS: '90000' }, /KURATE_EXTRACT_JOB_TIMEOUT_SECONDS must not be greater than 86399/],
    [{ KURATE_JOB_POLL_SECONDS: '0.1' }, /KURATE_JOB_POLL_SECONDS must not be less than 0.5/],
    [{ KURATE_WORKER_PROCESS: 'true' }, /KURATE_WORKER_PROCESS=true needs DATABASE_URL .* the embedded database belongs to one process/],
    [{ KURATE_WORKER_PROCESS: 'yes' }, /KURATE_WORKER_PROCESS must be true or false/],
    [{ KURATE_WORKER_NICE: '20' }, /KURATE_WORKER_NICE must not be greater than 19/],
  ])('refuses %o with a sentence naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('job failures', () => {
  it('take retryable and Retry-After from the backends’ errors; anything else may be transient', () => {
    expect(failureOf(new ExtractorError('429 too many requests', true, 7000))).toEqual({ message: '429 too many requests', retryable: true, retryAfterMs: 7000 });
    expect(failureOf(new ExtractorError('model not found', false))).toEqual({ message: 'model not found', retryable: false, retryAfterMs: undefined });
    expect(failureOf(new JobError('chunks changed', true))).toMatchObject({ retryable: true });
    expect(failureOf(new Error('connection reset'))).toEqual({ message: 'connection reset', retryable: true, retryAfterMs: undefined });
    expect(failureOf('odd').message).toBe('odd');
    expect(failureOf(new Error('x'.repeat(5000))).message).toHaveLength(2000);
  });
});
