import path from 'node:path';
import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// `npm run bench:review-time`: the review-time measurement (bench/review-time.measure.ts) on the test suite's support
// (a fresh database, Chromium), one file, alone on the machine. Kept out of `npm test`, whose include it does not match.
export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['bench/review-time.measure.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 900_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
