import { z } from 'zod';
import { invalidArgument } from './mcp-tool.js';

/** Lists give at most this many items per call, whatever the client asks. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 25;

/** The paging arguments every list tool takes. */
export const pagingInput = {
  cursor: z.string().max(500).optional().describe('The nextCursor of the previous call, to continue the list; omit it for the first page.'),
  limit: z.number().int().min(1).max(MAX_PAGE_SIZE).optional().describe(`How many items (1–${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}).`),
};

/** The paging facts every list answer carries. */
export const pagingOutput = {
  total: z.number().int().describe('How many items match in all.'),
  nextCursor: z.string().nullable().describe('Pass it as `cursor` to get the next page; null at the end.'),
};

export interface PageWindow {
  offset: number;
  limit: number;
}

/** The deepest offset a cursor may carry: far beyond any list, well inside PostgreSQL's bigint. */
const MAX_OFFSET = 1_000_000_000;

/**
 * Opaque cursors: the offset of the next item and the list they belong to, so that a cursor of one list (or
 * filter) given to another is refused instead of silently skipping items.
 */
export function readCursor(list: string, cursor: string | undefined, limit: number | undefined): PageWindow {
  const size = limit ?? DEFAULT_PAGE_SIZE;
  if (!cursor) return { offset: 0, limit: size };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidArgument('This cursor is not one Kurate gave: pass the nextCursor of the previous answer unchanged, or omit it.');
  }
  const { l, o } = (parsed ?? {}) as { l?: unknown; o?: unknown };
  // An offset past any list Kurate holds is no cursor of ours either (1e20 is an integer, and no bigint).
  if (l !== list || typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0 || o > MAX_OFFSET) {
    throw invalidArgument('This cursor belongs to another list or filter: pass the nextCursor of the previous answer of this same call, or omit it.');
  }
  return { offset: o, limit: size };
}

/** The cursor of the page after this one, or null when the list ends here. */
export function nextCursor(list: string, window: PageWindow, returned: number, total: number): string | null {
  const next = window.offset + returned;
  if (returned === 0 || next >= total) return null;
  return Buffer.from(JSON.stringify({ l: list, o: next })).toString('base64url');
}

/** One page of an array already in memory (small lists: tags, clusters, metadata values). */
export function pageOf<T>(list: string, items: T[], cursor: string | undefined, limit: number | undefined): { items: T[]; total: number; nextCursor: string | null } {
  const window = readCursor(list, cursor, limit);
  const slice = items.slice(window.offset, window.offset + window.limit);
  return { items: slice, total: items.length, nextCursor: nextCursor(list, window, slice.length, items.length) };
}
