import { describe, expect, it } from 'vitest';
import { ExtractorError, retryAfterMs, withDeadline } from '../../src/llm-client/llm-errors.js';

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');

  it.each([
    [{ 'retry-after': '7' }, 7000],
    [{ 'retry-after': '1.5' }, 1500],
    [{ 'retry-after': '0' }, 0],
    [{ 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    [{ 'retry-after': 'Sun, 29 Nov 2026 12:00:30 GMT' }, 30_000],
    [{ 'retry-after': 'Sun, 29 Nov 2026 11:00:00 GMT' }, 0],
    [{ 'retry-after': '999999999' }, 24 * 60 * 60 * 1000],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('reads %o as %o ms', (headers, expected) => {
    expect(retryAfterMs(headers, now)).toBe(expected);
    expect(retryAfterMs(new Headers(headers), now)).toBe(expected);
  });

  it('accepts no headers at all', () => {
    expect(retryAfterMs(null)).toBeUndefined();
  });
});

describe('withDeadline', () => {
  it('fires at the deadline and says it timed out', async () => {
    const deadline = withDeadline(20);
    await new Promise((resolve) => deadline.signal.addEventListener('abort', resolve));
    expect(deadline.timedOut()).toBe(true);
    deadline.dispose();
  });

  it("follows the caller's signal, which is not a timeout", () => {
    const controller = new AbortController();
    const deadline = withDeadline(10_000, controller.signal);
    controller.abort();
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.timedOut()).toBe(false);
    deadline.dispose();
    const already = withDeadline(10_000, controller.signal);
    expect(already.signal.aborted).toBe(true);
    already.dispose();
  });
});

describe('ExtractorError', () => {
  it('carries retryable and the wait, and is an Error', () => {
    const error = new ExtractorError('slow down', true, 7000);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'ExtractorError', message: 'slow down', retryable: true, retryAfterMs: 7000 });
    expect(new ExtractorError('bad key', false).retryAfterMs).toBeUndefined();
  });
});
