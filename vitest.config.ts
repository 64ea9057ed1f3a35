import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// SWC compiles the tests so that Nest's decorator metadata exists, as tsc emits it for the build.
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    // A file whose first line is `// @module-tag slow` (a browser, child processes, a compile, the whole Foam corpus
    // extracted) is left out by `npm run test:fast`; `npm test` runs everything (docs/testing.md).
    tags: [{ name: 'slow', description: 'a browser, child processes, a compile or the whole Foam corpus: npm run test:fast leaves it out' }],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
