import type { EnvironmentDto } from './environment.dto.js';

/** How page Markdown becomes HTML without holding up other requests (src/pages/markdown-pool.ts, docs/operations.md). */
export interface RenderConfig {
  /**
   * KURATE_RENDER_THREADS: worker threads that render, sanitise and analyse large pages; 0 does it all on the main
   * thread, where a page of a megabyte holds every other request for a second or more. null (unset): 1 when the
   * compiled worker module is there (the built server), else 0 (the TypeScript sources, as the tests run them).
   */
  threads: number | null;
  /** KURATE_RENDER_TIMEOUT_SECONDS: how long one page may take in a worker thread, from when the thread starts it, before the answer is a 422 (default 20). */
  timeoutMs: number;
}

export const DEFAULT_RENDER_CONFIG: RenderConfig = { threads: null, timeoutMs: 20_000 };

export function renderConfigFrom(raw: EnvironmentDto): RenderConfig {
  return {
    threads: raw.KURATE_RENDER_THREADS ?? DEFAULT_RENDER_CONFIG.threads,
    timeoutMs: raw.KURATE_RENDER_TIMEOUT_SECONDS !== undefined ? Math.round(raw.KURATE_RENDER_TIMEOUT_SECONDS * 1000) : DEFAULT_RENDER_CONFIG.timeoutMs,
  };
}
