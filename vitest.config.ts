import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// SWC compiles the tests so that Nest's decorator metadata exists, as tsc emits it for the build.
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    // A file whose first line is `// @module-tag slow` (a browser, child processes, a compile, the whole Foam corpus
    // extracted) is left out by `npm run test:fast`; `npm test` runs everything (docs/testing.md). Its tests may take
    // longer: a process start or a browser step waits for a core on a busy machine, while its CPU cost stays small.
    tags: [
      {
        name: 'slow',
        description: 'a browser, child processes, a compile or the whole Foam corpus: npm run test:fast leaves it out',
        timeout: 120_000,
      },
    ],
    pool: 'forks',
    maxWorkers: 2,
    // The files of one fork share the modules it has loaded (Nest, TypeORM, PGlite, the app): importing them once per
    // fork instead of once per file halves the suite's time. Each file still gets its own app and database
    // (docs/testing.md), and nothing the app keeps in a module may depend on what an earlier file did.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
