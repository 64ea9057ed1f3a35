import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Piscina } from 'piscina';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { ConfigError } from '../config/config-error.js';
import { KurateConfig } from '../config/kurate-config.js';
import { MarkdownRenderer, type RenderedMarkdown } from './markdown/markdown-renderer.js';
import { isTaskStarted, referencesOf, renderRequest, renderSize, saveAnalysisOf, type MarkdownReferences, type MarkdownTask, type MarkdownTaskResult, type NumberedMarkdownTask, type RenderRequest, type SaveAnalysis } from './markdown/markdown-tasks.js';

/**
 * Pages up to this many characters (with what they embed) render on the main thread: a few milliseconds, less than
 * the hand-over to a thread would cost. Larger ones render in a worker thread, so that a page of a megabyte, or a
 * table of 200,000 cells, never holds up the other requests (issue 18 part 4; bench/RESULTS.md).
 */
export const INLINE_RENDER_MAX_CHARS = 16_384;
/** Large pages waiting for a thread; more gets a 503 rather than an ever longer wait. */
const MAX_QUEUED = 64;
/** How many times a page is sent again to a new pool after other pages' time-outs ended the threads of its own. */
const MAX_RESENDS = 3;
/** Where the compiled worker module is, when not beside this module (tests that compile it themselves). */
export const MARKDOWN_WORKER_FILE = Symbol('MARKDOWN_WORKER_FILE');
const LATE = Symbol('late');

/**
 * Renders, sanitises and outlines page Markdown, and reads what a save or a preview needs from it (links, files):
 * small pages here, large ones in worker threads (KURATE_RENDER_THREADS).
 */
@Injectable()
export class MarkdownPool implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(MarkdownPool.name);
  private readonly renderer = new MarkdownRenderer();
  private readonly threads: number;
  private readonly timeoutMs: number;
  // Started on the first large page, so that a process that renders none (a worker) starts no thread.
  private pool: Piscina<NumberedMarkdownTask, MarkdownTaskResult> | null = null;
  // The tasks sent to threads and not yet started there, by number: each starts its time limit when its thread says so.
  private readonly notStarted = new Map<number, () => void>();
  private nextTaskId = 0;

  private readonly workerFile: string;
  private readonly explicitThreads: boolean;

  constructor(config: KurateConfig, @Optional() @Inject(MARKDOWN_WORKER_FILE) workerFile?: string) {
    this.workerFile = workerFile ?? compiledWorkerFile();
    this.explicitThreads = config.render.threads !== null;
    this.threads = config.render.threads ?? (existsSync(this.workerFile) ? 1 : 0);
    this.timeoutMs = config.render.timeoutMs;
  }

  onModuleInit(): void {
    if (this.explicitThreads && this.threads > 0 && !existsSync(this.workerFile)) {
      throw new ConfigError(`KURATE_RENDER_THREADS needs the compiled worker module ${this.workerFile}: build the server (npm run build), or set KURATE_RENDER_THREADS=0.`);
    }
  }

  /** The page's HTML and outline. */
  async render(request: RenderRequest): Promise<RenderedMarkdown> {
    if (this.threads === 0 || renderSize(request) <= INLINE_RENDER_MAX_CHARS) return renderRequest(this.renderer, request);
    return (await this.inThread({ kind: 'render', request }, renderSize(request))) as RenderedMarkdown;
  }

  /** The link keys and file targets of unsaved text (a preview resolves them before it renders). */
  async references(markdown: string): Promise<MarkdownReferences> {
    if (this.threads === 0 || markdown.length <= INLINE_RENDER_MAX_CHARS) return referencesOf(markdown);
    return (await this.inThread({ kind: 'references', markdown }, markdown.length)) as MarkdownReferences;
  }

  /** The links, embeds and file references of a page being saved: `markdown` is its source without frontmatter. */
  async saveAnalysis(markdown: string): Promise<SaveAnalysis> {
    if (this.threads === 0 || markdown.length <= INLINE_RENDER_MAX_CHARS) return saveAnalysisOf(markdown);
    return (await this.inThread({ kind: 'save', markdown }, markdown.length)) as SaveAnalysis;
  }

  private async inThread(work: MarkdownTask, size: number): Promise<MarkdownTaskResult> {
    for (let sent = 0; ; sent++) {
      const pool = this.pool ?? this.startPool();
      if (pool.queueSize >= MAX_QUEUED) {
        throw new DomainException(DomainErrorCode.Busy, 'The server is rendering many large pages at once; try again in a few seconds.');
      }
      const id = this.nextTaskId++;
      let timer: NodeJS.Timeout | undefined;
      // The time limit counts from the moment a thread starts the page: waiting behind other large pages, or for a
      // new thread to load, is not the page's fault.
      const late = new Promise<typeof LATE>((resolve) => {
        this.notStarted.set(id, () => {
          timer = setTimeout(() => resolve(LATE), this.timeoutMs);
        });
      });
      const task = pool.run({ id, task: work });
      try {
        const outcome = await Promise.race([task, late]);
        if (outcome !== LATE) return outcome;
        // Its thread may never finish: the pool's threads end, and new work goes to a new pool.
        this.retire(pool);
        throw tooComplex(`took longer than ${this.timeoutMs / 1000} s to render (KURATE_RENDER_TIMEOUT_SECONDS)`);
      } catch (error) {
        if (error instanceof DomainException) throw error;
        // Another page ran out of time and took this one's pool with it: again, on the new pool.
        if (pool !== this.pool && sent < MAX_RESENDS) continue;
        // A thread that died (out of memory on a hostile page) is replaced by the pool.
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.warn(`A page of ${size} characters failed to render in a worker thread: ${reason}`);
        throw tooComplex(`could not be rendered (${reason})`);
      } finally {
        this.notStarted.delete(id);
        clearTimeout(timer);
        task.catch(() => undefined);
      }
    }
  }

  private startPool(): Piscina<NumberedMarkdownTask, MarkdownTaskResult> {
    const pool = new Piscina<NumberedMarkdownTask, MarkdownTaskResult>({ filename: pathToFileURL(this.workerFile).href, minThreads: 1, maxThreads: this.threads, maxQueue: MAX_QUEUED, idleTimeout: 60_000 });
    pool.on('message', (message: unknown) => {
      if (!isTaskStarted(message)) return;
      this.notStarted.get(message.markdownTaskStarted)?.();
      this.notStarted.delete(message.markdownTaskStarted);
    });
    this.pool = pool;
    return pool;
  }

  /**
   * Ends a pool's threads at once. An abort signal would end only the late task's thread, but piscina can then
   * receive that task's answer from a thread it no longer knows (see BuiltinExtractor); a pool closed whole cannot.
   */
  private retire(pool: Piscina<NumberedMarkdownTask, MarkdownTaskResult>): void {
    if (this.pool === pool) this.pool = null;
    pool.close({ force: true }).catch((error: unknown) => this.logger.warn(`Closing a Markdown worker pool: ${error instanceof Error ? error.message : String(error)}`));
  }

  async onApplicationShutdown(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.close({ force: true });
  }
}

function tooComplex(what: string): DomainException {
  return new DomainException(DomainErrorCode.TooComplex, `This page ${what}. Split it into smaller pages, or simplify its largest table or list.`);
}

/** The worker module beside this one in dist/ (the TypeScript sources the tests run have none). */
function compiledWorkerFile(): string {
  return fileURLToPath(new URL('./markdown/markdown.worker.js', import.meta.url));
}
