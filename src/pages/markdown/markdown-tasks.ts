import { distinctFileTargets, fileReferencesIn, type FileReference, type ResolvedFile } from './file-embeds.js';
import { stripComments } from './obsidian-syntax.js';
import { distinctTargets, embedKeysOf, linksIn, referenceTokens, type BodyLink } from './wikilinks.js';
import type { MarkdownRenderer, RenderedMarkdown, ResolvedTarget } from './markdown-renderer.js';
import { MAX_EMBEDDED_CHARS, startTransclusion, type EmbeddedPage } from './transclusion.js';

/**
 * Everything one rendering needs, as plain data: what the database said about the page's links, embeds and files,
 * resolved beforehand. It crosses to a worker thread as it is (structured clone), so a large page renders there.
 */
export interface RenderRequest {
  /** The page body without frontmatter. */
  markdown: string;
  /** Link key → the page it resolves to, or null for a broken link. */
  links: [key: string, target: ResolvedTarget | null][];
  /** The pages it embeds (`![[Note]]`), by link key; null when it embeds none. */
  embeds: { hostSlug: string; pages: [key: string, page: EmbeddedPage][] } | null;
  /** Stored files it references, by normalised target. */
  files: [target: string, file: ResolvedFile][];
}

/**
 * The characters a rendering may work through: the page, and what its embeds transclude, each occurrence counted
 * (a page embedded 50 times is rendered 50 times), up to the budget a rendering transcludes at most.
 */
export function renderSize(request: RenderRequest): number {
  if (!request.embeds || request.embeds.pages.length === 0) return request.markdown.length;
  const pages = request.embeds.pages.map(([, page]) => page.markdown.length);
  const occurrences = request.markdown.split('![[').length - 1;
  const embedded = Math.max(...pages) * Math.max(occurrences, 1) + pages.reduce((sum, n) => sum + n, 0);
  return request.markdown.length + Math.min(MAX_EMBEDDED_CHARS, embedded);
}

/** Renders a request with `renderer`: the same code on the main thread and in a worker thread. */
export function renderRequest(renderer: MarkdownRenderer, request: RenderRequest): RenderedMarkdown {
  const links = new Map(request.links);
  const files = new Map(request.files);
  const embedded = request.embeds && new Map(request.embeds.pages);
  const transclusion = request.embeds && embedded ? startTransclusion(request.embeds.hostSlug, (link) => embedded.get(link.key) ?? null) : undefined;
  return renderer.render(request.markdown, (link) => links.get(link.key) ?? null, { transclusion, resolveFile: (target) => files.get(target) ?? null });
}

/** What a preview asks of unsaved text before it can resolve anything: the link keys and file targets in it. */
export interface MarkdownReferences {
  linkKeys: string[];
  fileTargets: string[];
}

export function referencesOf(markdown: string): MarkdownReferences {
  const tokens = referenceTokens(markdown);
  return { linkKeys: [...new Set(linksIn(tokens).map((link) => link.key))], fileTargets: distinctFileTargets(fileReferencesIn(tokens)) };
}

/** What a save reads from a page's Markdown (its frontmatter parsed and validated already): its links and its files. */
export interface SaveAnalysis {
  /** The pages it links to, comments left out (the Page Graph's rows). */
  links: BodyLink[];
  /** The keys of the pages it embeds (`![[Note]]`), comments left out: what its search text transcludes. */
  embedKeys: string[];
  /** Its file references, in document order (the attachments' rows). */
  fileReferences: FileReference[];
}

/** `markdown`: the page's source without its frontmatter (the save has parsed that already). */
export function saveAnalysisOf(markdown: string): SaveAnalysis {
  // Files are read from the source as written, links without its comments: one parse serves both unless it has any.
  const tokens = referenceTokens(markdown);
  const withoutComments = stripComments(markdown);
  const parsed = linksIn(withoutComments === markdown ? tokens : referenceTokens(withoutComments));
  return { links: distinctTargets(parsed), embedKeys: embedKeysOf(parsed), fileReferences: fileReferencesIn(tokens) };
}

/** One piece of work for a Markdown worker thread. */
export type MarkdownTask = { kind: 'render'; request: RenderRequest } | { kind: 'references'; markdown: string } | { kind: 'save'; markdown: string };
export type MarkdownTaskResult = RenderedMarkdown | MarkdownReferences | SaveAnalysis;

/** A task as it crosses to a thread: numbered, so that the thread can say when it starts it. */
export interface NumberedMarkdownTask {
  id: number;
  task: MarkdownTask;
}

/** What a thread posts to the main thread as it starts a task: the task's time limit counts from then. */
export interface MarkdownTaskStarted {
  markdownTaskStarted: number;
}

export function isTaskStarted(message: unknown): message is MarkdownTaskStarted {
  return typeof message === 'object' && message !== null && typeof (message as MarkdownTaskStarted).markdownTaskStarted === 'number';
}

export function markdownTask(renderer: MarkdownRenderer, task: MarkdownTask): MarkdownTaskResult {
  switch (task.kind) {
    case 'render':
      return renderRequest(renderer, task.request);
    case 'references':
      return referencesOf(task.markdown);
    case 'save':
      return saveAnalysisOf(task.markdown);
  }
}
