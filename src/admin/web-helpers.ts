import type { Response } from 'express';
import { DomainException } from '../common/domain.exception.js';
import { httpStatusOf } from '../common/domain-exception.filter.js';
import { REVIEW_PREDICATES, REVIEW_TYPES } from './review-vocabulary.js';

export const KG_BASE = '/admin/knowledge-graph';
export const REVIEW_CSS = ['/static/css/review.css'];
export const REVIEW_SCRIPTS = ['/static/js/review.js'];
export const GRAPH_SCRIPTS = ['/static/vendor/cytoscape/cytoscape.min.js', '/static/js/review.js'];

export const entityHref = (id: string) => `${KG_BASE}/ui/entities/${id}`;
export const edgeHref = (id: string) => `${KG_BASE}/ui/edges/${id}`;
export const proposalHref = (id: string) => `${KG_BASE}/ui/proposals/${id}`;

export interface Option {
  value: string;
  label: string;
  selected: boolean;
}

export function options(values: readonly string[], selected: string | undefined, labels: Record<string, string> = {}): Option[] {
  return values.map((value) => ({ value, label: labels[value] ?? value.replace(/_/g, ' '), selected: value === selected }));
}

export const typeOptions = (selected?: string) => options(REVIEW_TYPES, selected);
export const predicateOptions = (selected?: string) => options(REVIEW_PREDICATES, selected);

/**
 * Where to go back to after a form: only a path inside the review UI (never another site, never `//host`), else
 * the queue.
 */
export function safeReturn(value: string, fallback = KG_BASE): string {
  return /^\/admin\/knowledge-graph(\/|\?|$)/.test(value) && !/[\\\s]|\/\//.test(value) && value.length <= 2000 ? value : fallback;
}

/** Adds query parameters to a path that may already have some. */
export function withParams(path: string, params: Record<string, string | null | undefined>): string {
  const [base, query = ''] = path.split('?', 2);
  const search = new URLSearchParams(query);
  for (const [k, v] of Object.entries(params)) {
    search.delete(k);
    if (v !== null && v !== undefined && v !== '') search.set(k, v);
  }
  const text = search.toString();
  return text ? `${base}?${text}` : base;
}

/** The status and message of an error a user caused (a DomainException), or null for anything else. */
export function userError(error: unknown): { status: number; message: string; details: Record<string, unknown> } | null {
  if (!(error instanceof DomainException)) return null;
  return { status: httpStatusOf(error.code), message: error.message, details: error.details };
}

/** Runs `work`; a user's mistake is shown with `render` (status and message) instead of an error page. */
export async function showingUserErrors(res: Response, work: () => Promise<unknown>, render: (status: number, message: string) => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const known = userError(error);
    if (!known) throw error;
    await render(known.status, known.message);
  }
}

export function percent(confidence: number | null): string {
  return confidence === null ? '' : `${Math.round(confidence * 100)}%`;
}
