import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { llmErrorKind } from '../../src/llm/measured-backends.js';
import { ExtractorError } from '../../src/llm-client/llm-errors.js';
import { routeLabel } from '../../src/metrics/http-metrics.js';
import { loadConfig } from '../../src/config/kurate-config.js';
import { browserUrl, redactedDatabaseUrl, startupReport } from '../../src/startup-report.js';

const request = (fields: Partial<Request> & { route?: { path: string } }) => ({ baseUrl: '', path: '/', ...fields }) as unknown as Request;
const response = (locals: Record<string, unknown> = {}) => ({ locals }) as unknown as Response;

describe('metric labels', () => {
  it('labels a request by its route pattern, what a middleware named, static files, or unmatched', () => {
    expect(routeLabel(request({ route: { path: '/api/pages/:slug' }, path: '/api/pages/secret-title' }), response())).toBe('/api/pages/:slug');
    expect(routeLabel(request({ baseUrl: '/admin', route: { path: '/users/:id' } }), response())).toBe('/admin/users/:id');
    expect(routeLabel(request({ path: '/page/some-page' }), response({ metricsRoute: '/page/:slug' }))).toBe('/page/:slug');
    expect(routeLabel(request({ path: '/static/kurate.css' }), response())).toBe('static');
    expect(routeLabel(request({ path: '/wp-login.php' }), response())).toBe('unmatched');
  });

  it('names an LLM failure by kind: aborted, timeout, rate limited, retryable, permanent, other', () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(llmErrorKind(new Error('whatever'), aborted.signal)).toBe('aborted');
    expect(llmErrorKind(new DOMException('timed out after 10 ms', 'TimeoutError'))).toBe('timeout');
    expect(llmErrorKind(new ExtractorError('Ollama timed out after 60000 ms', true))).toBe('timeout');
    expect(llmErrorKind(new ExtractorError('429', true, 5000))).toBe('rate_limited');
    expect(llmErrorKind(new ExtractorError('503 from the backend', true))).toBe('retryable');
    expect(llmErrorKind(new ExtractorError('model not found', false))).toBe('permanent');
    expect(llmErrorKind(new TypeError('x is undefined'))).toBe('other');
  });
});

describe('the start-up report', () => {
  const facts = { version: '1.2.3', nodeVersion: 'v20.19.0', extractor: { name: 'ollama' as const, model: 'qwen2.5:7b-instruct' }, embedder: { name: 'builtin' as const, model: 'kurate-hash-384-v1' } };

  it('never prints a database password, and opens loopback and wildcard binds as localhost', () => {
    expect(redactedDatabaseUrl('postgres://kurate:s3cret@db.example.com:5432/kurate')).toBe('postgres://kurate:***@db.example.com:5432/kurate');
    expect(redactedDatabaseUrl('postgres://db/kurate')).toBe('postgres://db/kurate');
    expect(browserUrl(loadConfig({ KURATE_HOST: '0.0.0.0', PORT: '8080' }))).toBe('http://localhost:8080/');
    expect(browserUrl(loadConfig({ KURATE_HOST: 'wiki.internal' }))).toBe('http://wiki.internal:3000/');
  });

  it('says what runs, on which database, with which extractor and embedder, and where to open it, in four lines', () => {
    const lines = startupReport(loadConfig({ DATABASE_URL: 'postgres://kurate:s3cret@db:5432/wiki', KURATE_ROLE: 'web' }), facts);
    expect(lines).toEqual([
      'Kurate 1.2.3 on Node v20.19.0: web (jobs are worked by KURATE_ROLE=worker processes); log level log (KURATE_LOG_LEVEL)',
      'Database:  PostgreSQL postgres://kurate:***@db:5432/wiki (pool of 10)',
      'Extractor: ollama (qwen2.5:7b-instruct); embedder: builtin (kurate-hash-384-v1)',
      'Kurate is running: open http://localhost:3000/ in your browser.',
    ]);
    const worker = startupReport(loadConfig({ DATABASE_URL: 'postgres://db/wiki', KURATE_ROLE: 'worker' }), facts);
    expect(worker.at(-1)).toBe('Kurate worker is running: it works extraction jobs and serves no HTTP.');
    // KURATE_ROLE=all on PostgreSQL: the worker process it started for the jobs.
    const all = startupReport(loadConfig({ DATABASE_URL: 'postgres://db/wiki' }), { ...facts, workerPid: 4242 });
    expect(all).toContain('Jobs:      in a worker process it started (pid 4242), at a CPU priority 10 lower (KURATE_WORKER_PROCESS, KURATE_WORKER_NICE)');
    expect(startupReport(loadConfig({}), facts).some((line) => line.startsWith('Jobs:'))).toBe(false);
  });
});
