import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkTextOfOllamaRequest } from '../support/fake-ollama.js';
import { count, gadgetAnswer, gadgetPage, setPolicy, startOllamaTestApp, waitForJobs, type OllamaTestApp } from './kg-test-helpers.js';

/**
 * The per-backend limits on extraction calls (KURATE_EXTRACT_CONCURRENCY, KURATE_EXTRACT_RATE_PER_MINUTE), measured
 * on a fake Ollama server: how many calls it holds at once, and when each one arrives.
 */
describe('extraction call limits of the Ollama backend (fake server)', () => {
  describe('KURATE_EXTRACT_CONCURRENCY=2', () => {
    const HOLD_MS = 150;
    let app: OllamaTestApp;
    let inFlight = 0;
    let peak = 0;

    beforeAll(async () => {
      app = await startOllamaTestApp((request) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        // Set before the server's own timer of the same length, so it fires first: the count drops just before
        // the answer leaves, never after a further request could arrive.
        setTimeout(() => inFlight--, HOLD_MS);
        return { kind: 'hang', ms: HOLD_MS, then: { kind: 'chat', content: gadgetAnswer(chunkTextOfOllamaRequest(request)) } };
      }, { KURATE_EXTRACT_CONCURRENCY: '2' });
    }, 60_000);
    afterAll(() => app?.close());

    it('never has more than 2 calls in flight, across the pages worked on at once, and does have 2', async () => {
      // Three pages of four chunks: the worker takes 3 pages at once (concurrency + 1), 12 calls want to go.
      for (const title of ['Limits One', 'Limits Two', 'Limits Three']) {
        await app.admin.post('/api/pages').send({ title, body: gadgetPage('limits', { sections: 4 }) }).expect(201);
      }
      const started = Date.now();
      await setPolicy(app.admin, 'limits', 'include');
      await waitForJobs(app.t);
      const chunks = await count(app.t, 'SELECT count(*) FROM kg_content_chunks');
      expect(chunks).toBe(12);
      expect(app.fake.calls).toBe(chunks);
      expect(peak).toBe(2);
      // Two at a time, 150 ms each: at least six rounds.
      expect(Date.now() - started).toBeGreaterThanOrEqual((chunks / 2) * HOLD_MS);
    });
  });

  describe('KURATE_EXTRACT_RATE_PER_MINUTE=60', () => {
    let app: OllamaTestApp;
    const arrivals: number[] = [];

    beforeAll(async () => {
      // Concurrency well above the calls a page makes: only the rate holds them back.
      app = await startOllamaTestApp((request) => {
        arrivals.push(Date.now());
        return { kind: 'chat', content: gadgetAnswer(chunkTextOfOllamaRequest(request)) };
      }, { KURATE_EXTRACT_CONCURRENCY: '64', KURATE_EXTRACT_RATE_PER_MINUTE: '60' });
    }, 60_000);
    afterAll(() => app?.close());

    it('spaces calls beyond the budget one second apart (60 a minute)', async () => {
      // 62 chunks: the bucket starts full (60 calls at once), then refills one call a second.
      await app.admin.post('/api/pages').send({ title: 'Rate', body: gadgetPage('rate', { sections: 62 }) }).expect(201);
      await setPolicy(app.admin, 'rate', 'include');
      await waitForJobs(app.t);
      expect(await count(app.t, 'SELECT count(*) FROM kg_content_chunks')).toBe(62);
      expect(app.fake.calls).toBe(62);
      // Times after the first call's arrival. The bucket emptied when the calls were sent (just before the first
      // arrived): the first 60 went at once, the 61st waited a second for a token, the 62nd another.
      const sorted = [...arrivals].sort((a, b) => a - b);
      const after = sorted.map((at) => at - sorted[0]);
      // (Margins for a busy machine: the calls' own latency shifts arrivals by some tens of milliseconds, and the
      // first arrival itself can come a quarter of a second after the bucket emptied: 755 ms was seen at load ~4.
      // The spacing proper is the gap from the 61st to the 62nd.)
      expect(after[59]).toBeLessThan(800);
      expect(after[60]).toBeGreaterThanOrEqual(600);
      expect(after[61]).toBeGreaterThanOrEqual(1700);
      expect(after[61] - after[60]).toBeGreaterThanOrEqual(800);
    }, 20_000);
  });
});
