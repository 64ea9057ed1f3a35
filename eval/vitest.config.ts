import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// The search evaluation runs the whole application like an e2e test, but only on `npm run eval:search`.
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['eval/**/*.eval.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
