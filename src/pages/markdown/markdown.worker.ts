// The module a Markdown worker thread loads (MarkdownPool, KURATE_RENDER_THREADS above 0): the pool calls its
// default export once per large page to render or to analyse.
import { parentPort } from 'node:worker_threads';
import { markdownTask, type MarkdownTaskResult, type MarkdownTaskStarted, type NumberedMarkdownTask } from './markdown-tasks.js';
import { MarkdownRenderer } from './markdown-renderer.js';

const renderer = new MarkdownRenderer();

export default function runInWorker({ id, task }: NumberedMarkdownTask): MarkdownTaskResult {
  // The pool's time limit for this page starts now, not while the page waited for this thread or the thread started.
  parentPort?.postMessage({ markdownTaskStarted: id } satisfies MarkdownTaskStarted);
  return markdownTask(renderer, task);
}
