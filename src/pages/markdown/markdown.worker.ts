// The module a Markdown worker thread loads (MarkdownPool, KURATE_RENDER_THREADS above 0): the pool calls its
// default export once per large page to render or to analyse.
import { markdownTask, type MarkdownTask, type MarkdownTaskResult } from './markdown-tasks.js';
import { MarkdownRenderer } from './markdown-renderer.js';

const renderer = new MarkdownRenderer();

export default function runInWorker(task: MarkdownTask): MarkdownTaskResult {
  return markdownTask(renderer, task);
}
