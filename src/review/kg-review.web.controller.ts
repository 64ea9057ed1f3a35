import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, UseInterceptors } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { fieldText, readForm } from '../web/forms.js';
import { EditApproveDto, GapsQueryDto, ProposalFilterDto, ProposalListQueryDto } from './dto/review.dto.js';
import { EntityPagesService } from '../curation/entity-pages.service.js';
import { QUEUE_SORTS } from './proposals.repository.js';
import { ReviewErrors } from '../admin/review-errors.js';
import { ReviewIdPipe } from '../admin/review-id.pipe.js';
import { ReviewQueueService, type ProposalView } from './review-queue.service.js';
import { BULK_DEFAULT_LIMIT, ReviewService, type ApprovalEdits } from './review.service.js';
import { ServerTimingInterceptor } from '../admin/server-timing.interceptor.js';
import { UndoService } from '../curation/undo.service.js';
import { KgCalibrationService } from '../kg/kg-calibration.service.js';
import { TriageService } from './triage.service.js';
import { storableNumber } from '../common/real-numbers.js';
import {
  entityHref, KG_BASE, options, percent, predicateOptions, proposalHref, REVIEW_CSS, REVIEW_SCRIPTS, safeReturn, showingUserErrors,
  typeOptions, userError, withParams,
} from '../admin/web-helpers.js';

const QUEUE_PAGE_SIZE = 25;
/** A form handler that rendered a page itself (a confirmation) instead of acting. */
const RENDERED = Symbol('rendered');
const FILTER_FIELDS = ['kind', 'type', 'predicate', 'cluster', 'page', 'extractor', 'minConfidence', 'maxConfidence', 'q'] as const;
const SORT_LABELS: Record<string, string> = { confidence: 'confidence', support: 'support (pages and chunks)', age: 'age' };

/**
 * The review queue in HTML: GET /admin/knowledge-graph and /admin/knowledge-graph/ui/*, plain forms with the CSRF
 * token and no inline script or style (public/js/review.js adds the keyboard: j/k, a, r, e). Actions redirect back
 * to the queue with `done=<action id>`, which shows what happened and an undo button.
 */
@ApiExcludeController()
@Controller('admin/knowledge-graph')
@Access('admin')
@UseInterceptors(ServerTimingInterceptor)
export class KgReviewWebController {
  constructor(
    private readonly queue: ReviewQueueService,
    private readonly review: ReviewService,
    private readonly undo: UndoService,
    private readonly pages: EntityPagesService,
    private readonly triage: TriageService,
    private readonly calibration: KgCalibrationService,
  ) {}

  @Get()
  async queuePage(@Query() query: Record<string, unknown>, @Res() res: Response) {
    await this.renderQueue(res, 200, query, {});
  }

  @Get('ui/proposals/:id')
  async proposalPage(@Param('id', ReviewIdPipe) id: string, @Query() query: Record<string, unknown>, @Res() res: Response) {
    await this.renderProposal(res, 200, id, { returnUrl: safeReturn(fieldText(query, 'return')) });
  }

  @Post('ui/proposals/:id/approve')
  @HttpCode(200)
  async approve(@Param('id', ReviewIdPipe) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const back = safeReturn(fieldText(form, 'return'));
    const input = readForm(EditApproveDto, {
      name: fieldText(form, 'name') || undefined,
      type: fieldText(form, 'type') || undefined,
      description: fieldText(form, 'description') || undefined,
      predicate: fieldText(form, 'predicate') || undefined,
      swapDirection: fieldText(form, 'swap') === 'on' ? 'true' : undefined,
      intoEntityId: fieldText(form, 'into') || undefined,
      note: fieldText(form, 'note') || undefined,
    });
    await this.act(res, back, form, async () => {
      if (!input.ok) throw ReviewErrors.invalid(input.message);
      const { note, ...edits } = input.value;
      const outcome = await this.review.approve(id, edits as ApprovalEdits, note ?? null, origin);
      return outcome.actionId;
    });
  }

  @Post('ui/proposals/:id/reject')
  @HttpCode(200)
  async reject(@Param('id', ReviewIdPipe) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const back = safeReturn(fieldText(form, 'return'));
    const reason = fieldText(form, 'reason').trim().slice(0, 1000) || null;
    await this.act(res, back, form, async () => (await this.review.reject(id, reason, origin)).actionId);
  }

  @Post('ui/proposals/:id/reopen')
  @HttpCode(200)
  async reopen(@Param('id', ReviewIdPipe) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const back = safeReturn(fieldText(form, 'return'));
    await this.act(res, back, form, async () => (await this.review.reopen(id, origin)).actionId);
  }

  /** Bulk: the selection at once; everything matching the filter after a confirmation that says how many. */
  @Post('ui/bulk')
  @HttpCode(200)
  async bulk(@Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const back = safeReturn(fieldText(form, 'return'));
    // Exactly one of the two buttons' values: anything else (no button, a typed value, the field twice) decides nothing.
    const chosen = fieldText(form, 'action');
    const action = chosen === 'approve' || chosen === 'reject' ? chosen : null;
    const noAction = () => ReviewErrors.invalid('Choose “Approve selected” or “Reject selected”: the form did not say which.');
    const reason = fieldText(form, 'reason').trim().slice(0, 1000) || undefined;
    const raw = (form as Record<string, unknown> | null)?.ids;
    const ids = (Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : []).filter((v): v is string => typeof v === 'string' && /^[1-9]\d{0,17}$/.test(v));
    if (fieldText(form, 'scope') !== 'matching') {
      await this.act(res, back, form, async () => {
        if (!action) throw noAction();
        if (ids.length === 0) throw ReviewErrors.invalid('Select some proposals first (the boxes beside them), or use “everything matching”.');
        return (await this.review.bulk({ action, ids, reason }, origin)).actionId;
      });
      return;
    }
    const filterInput = readForm(ProposalFilterDto, Object.fromEntries(FILTER_FIELDS.map((f) => [f, fieldText(form, f) || undefined])));
    const minConfidence = storableNumber(Number(fieldText(form, 'bulkMinConfidence')));
    await this.act(res, back, form, async () => {
      if (!action) throw noAction();
      if (!filterInput.ok) throw ReviewErrors.invalid(filterInput.message);
      if (fieldText(form, 'bulkMinConfidence').trim() === '' || !(minConfidence >= 0 && minConfidence <= 1)) {
        throw ReviewErrors.invalid('Give the lowest confidence to act on, from 0 to 1 (e.g. 0.9).');
      }
      const filter = { ...filterInput.value, minConfidence: Math.max(minConfidence, filterInput.value.minConfidence ?? 0) };
      if (fieldText(form, 'confirm') !== 'yes') {
        const listed = await this.queue.list({ filter, limit: 1 });
        const count = Math.min(listed.total, BULK_DEFAULT_LIMIT);
        res.render('admin/knowledge-graph-bulk', {
          title: `Confirm: ${action} ${count}`, extraCss: REVIEW_CSS, nav: 'queue', action, isReject: action === 'reject', count,
          capped: listed.total >= BULK_DEFAULT_LIMIT,
          minConfidence: filter.minConfidence, reason: reason ?? '', returnUrl: back,
          hidden: FILTER_FIELDS.map((f) => ({ name: f, value: fieldText(form, f) })).filter((f) => f.value !== ''),
          filterText: describeFilter(filterInput.value),
        });
        return RENDERED;
      }
      return (await this.review.bulk({ action, filter: filterInput.value, minConfidence: filter.minConfidence, reason }, origin)).actionId;
    });
  }

  /** A triage group's preview: every proposal its action would take and what it would change, with the confirmation. */
  @Get('ui/triage/:group')
  async triagePage(@Param('group') group: string, @Query() query: Record<string, unknown>, @Res() res: Response) {
    await this.renderTriage(res, 200, group, { returnUrl: safeReturn(fieldText(query, 'return')) });
  }

  /** Confirms a triage group's action on the proposals its preview listed (the boxes left ticked). */
  @Post('ui/triage/:group')
  @HttpCode(200)
  async triageAction(@Param('group') group: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const back = safeReturn(fieldText(form, 'return'));
    const raw = (form as Record<string, unknown> | null)?.ids;
    const ids = (Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : []).filter((v): v is string => typeof v === 'string' && /^[1-9]\d{0,17}$/.test(v));
    const note = fieldText(form, 'note').trim().slice(0, 1000) || null;
    await showingUserErrors(
      res,
      async () => {
        if (ids.length === 0) throw ReviewErrors.invalid('Nothing was ticked: tick the proposals to act on, or go back to the queue.');
        const outcome = await this.triage.apply(group, ids, note, origin);
        res.redirect(303, withParams(back, { done: outcome.actionId }));
      },
      (status, message) => this.renderTriage(res, status, group, { returnUrl: back, error: message }),
    );
  }

  /** How confidence is calibrated: per extractor and kind, the map, its error, this wiki's reviews; and Refit now. */
  @Get('ui/calibration')
  async calibrationPage(@Query('refitted') refitted: unknown, @Res() res: Response) {
    await this.renderCalibration(res, 200, { refitted: typeof refitted === 'string' && /^\d+$/.test(refitted) ? Number(refitted) : null });
  }

  @Post('ui/calibration/refit')
  @HttpCode(200)
  async refitCalibration(@Res() res: Response) {
    const { refitted } = await this.calibration.refitNow();
    res.redirect(303, `${KG_BASE}/ui/calibration?refitted=${refitted.length}`);
  }

  @Get('ui/audit')
  async auditPage(@Query('before') before: unknown, @Query('done') done: unknown, @Res() res: Response) {
    const beforeId = typeof before === 'string' && /^[1-9]\d{0,17}$/.test(before) ? before : undefined;
    await this.renderAudit(res, 200, beforeId, { done: await this.doneNotice(done) });
  }

  @Post('ui/audit/:id/undo')
  @HttpCode(200)
  async undoAction(@Param('id', ReviewIdPipe) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const back = safeReturn(fieldText(form, 'return'), `${KG_BASE}/ui/audit`);
    await showingUserErrors(
      res,
      async () => {
        const outcome = await this.undo.undo(id, origin);
        res.redirect(303, withParams(back, { done: outcome.actionId }));
      },
      (status, message) => this.renderAudit(res, status, undefined, { error: message }),
    );
  }

  @Get('ui/gaps')
  async gapsPage(@Query() query: Record<string, unknown>, @Res() res: Response) {
    const input = readForm(GapsQueryDto, query);
    const minPages = input.ok ? (input.value.minPages ?? 2) : 2;
    const gaps = await this.pages.contentGaps(minPages, 200);
    res.status(input.ok ? 200 : 400).render('admin/knowledge-graph-gaps', {
      title: 'Pages worth writing', extraCss: REVIEW_CSS, nav: 'gaps', minPages, error: input.ok ? null : input.message,
      items: gaps.items.map((g) => ({ ...g, entityHref: g.entity ? entityHref(g.entity.id) : null, fromPages: g.fromPages.slice(0, 5), moreFrom: Math.max(0, g.fromPages.length - 5) })),
      entityCount: gaps.entities, wantedCount: gaps.wanted,
    });
  }

  // --- rendering ---------------------------------------------------------------------------------------------------

  private async renderQueue(res: Response, status: number, query: Record<string, unknown>, extra: { error?: string }) {
    const input = readForm(ProposalListQueryDto, Object.fromEntries(Object.entries(query).filter(([k]) => !['done', 'focus'].includes(k))));
    const q = input.ok ? input.value : new ProposalListQueryDto();
    const { sort, direction, after, before, limit: _limit, status: proposalStatus, ...filter } = q;
    let page;
    let error = extra.error ?? (input.ok ? null : input.message);
    try {
      page = await this.queue.list({ filter: { ...filter, status: proposalStatus }, sort, direction, after, before, limit: QUEUE_PAGE_SIZE });
    } catch (e) {
      const known = userError(e);
      if (!known) throw e;
      error = known.message;
      status = known.status;
      page = await this.queue.list({ filter: { ...filter, status: proposalStatus }, sort, direction, limit: QUEUE_PAGE_SIZE });
    }
    const base: Record<string, string | undefined> = {
      ...Object.fromEntries(FILTER_FIELDS.map((f) => [f, q[f] === undefined ? undefined : String(q[f])])),
      status: proposalStatus, sort, direction,
    };
    const href = (params: Record<string, string | undefined>) => withParams(KG_BASE, { ...base, ...params });
    const current = href({ after, before });
    const pending = (proposalStatus ?? 'pending') === 'pending';
    const items = page.items.map((item, i) => proposalModel(item, page.items[i + 1]?.id ?? page.items[i - 1]?.id ?? null, 'queue'));
    const triage = pending ? (await this.triage.groups()).filter((g) => g.count > 0) : [];
    res.status(status === 200 && !input.ok ? 400 : status).render('admin/knowledge-graph', {
      title: 'Review queue',
      extraCss: REVIEW_CSS,
      scripts: REVIEW_SCRIPTS,
      nav: 'queue',
      error,
      done: await this.doneNotice(query.done),
      focus: typeof query.focus === 'string' && /^\d+$/.test(query.focus) ? query.focus : null,
      filter: { ...base, cluster: q.cluster ?? '', page: q.page ?? '', extractor: q.extractor ?? '', q: q.q ?? '', minConfidence: q.minConfidence ?? '', maxConfidence: q.maxConfidence ?? '' },
      kindOptions: options(['node', 'edge'], q.kind, { node: 'entities (nodes)', edge: 'relations (edges)' }),
      typeOptions: typeOptions(q.type),
      predicateOptions: predicateOptions(q.predicate),
      statusOptions: options(['pending', 'approved', 'rejected', 'retired'], proposalStatus ?? 'pending'),
      sortOptions: options(QUEUE_SORTS, page.sort, SORT_LABELS),
      directionOptions: options(['desc', 'asc'], page.direction, { desc: 'highest / newest first', asc: 'lowest / oldest first' }),
      filtered: FILTER_FIELDS.some((f) => q[f] !== undefined),
      filterInvalid: !input.ok,
      chips: filterChips(q, proposalStatus, (field) => href({ [field]: undefined })),
      items,
      pending,
      total: page.total,
      capped: page.capped,
      returnUrl: current,
      firstHref: after || before ? href({}) : null,
      prevHref: page.prevCursor ? href({ before: page.prevCursor }) : null,
      nextHref: page.nextCursor ? href({ after: page.nextCursor }) : null,
      hidden: FILTER_FIELDS.map((f) => ({ name: f, value: base[f] ?? '' })).filter((f) => f.value !== ''),
      triage: triage.map((g) => ({ ...g, href: withParams(`${KG_BASE}/ui/triage/${g.id}`, { return: current }) })),
    });
  }

  private async renderTriage(res: Response, status: number, group: string, extra: { returnUrl: string; error?: string }) {
    const preview = await this.triage.preview(group);
    res.status(status).render('admin/knowledge-graph-triage', {
      title: `Triage: ${preview.label}`,
      extraCss: REVIEW_CSS,
      nav: 'queue',
      group: { ...preview, isReject: preview.action === 'reject' },
      items: preview.items.map((i) => ({ ...i, href: proposalHref(i.proposalId), confidencePct: percent(i.confidence) })),
      returnUrl: extra.returnUrl,
      error: extra.error ?? null,
    });
  }

  private async renderCalibration(res: Response, status: number, extra: { refitted: number | null }) {
    const state = await this.calibration.status();
    res.status(status).render('admin/knowledge-graph-calibration', {
      title: 'Calibrated confidence',
      extraCss: REVIEW_CSS,
      nav: 'queue',
      ...state,
      refitted: extra.refitted,
      rows: state.calibrations.map((c) => ({
        ...c,
        isNode: c.kind === 'node',
        sourceLabel: c.source === 'instance' ? 'this wiki’s reviews' : c.source === 'judged' ? 'the judged set' : 'none (raw score)',
        // What the map makes of a few raw scores, for the table.
        samples: [0.6, 0.7, 0.8, 0.9].map((raw) => ({ raw, calibrated: percent(calibrateAt(c.map.points, raw)) })),
      })),
    });
  }

  private async renderProposal(res: Response, status: number, id: string, extra: { returnUrl: string; error?: string }) {
    const proposal = await this.queue.get(id);
    res.status(status).render('admin/knowledge-graph-proposal', {
      title: `Proposal ${id}`,
      extraCss: REVIEW_CSS,
      scripts: REVIEW_SCRIPTS,
      nav: 'queue',
      proposal: proposalModel(proposal, null, 'page'),
      returnUrl: extra.returnUrl,
      error: extra.error ?? null,
    });
  }

  private async renderAudit(res: Response, status: number, beforeId: string | undefined, extra: { done?: unknown; error?: string }) {
    const limit = 50;
    const actions = await this.undo.list({ beforeId, limit });
    res.status(status).render('admin/knowledge-graph-audit', {
      title: 'Review history and undo',
      extraCss: REVIEW_CSS,
      nav: 'audit',
      done: extra.done ?? null,
      error: extra.error ?? null,
      actions: actions.map((a) => ({ ...a, isUndo: a.action === 'undo', label: a.action.replace(/_/g, ' '), targetHref: targetHref(a.target) })),
      nextHref: actions.length === limit ? `${KG_BASE}/ui/audit?before=${actions.at(-1)!.id}` : null,
      newestHref: beforeId ? `${KG_BASE}/ui/audit` : null,
    });
  }

  /** `done=<action id>` after a redirect: what the action did, and whether it can still be undone. */
  private async doneNotice(done: unknown) {
    if (typeof done !== 'string' || !/^[1-9]\d{0,17}$/.test(done)) return null;
    try {
      const { action } = await this.undo.get(done);
      return { id: action.id, summary: action.summary, undoable: action.undoable };
    } catch {
      return null;
    }
  }

  /** Runs a form's action and goes back (303) with its outcome; a user's mistake re-renders the queue with it. */
  private async act(res: Response, back: string, form: unknown, work: () => Promise<string | null | typeof RENDERED>) {
    await showingUserErrors(
      res,
      async () => {
        const actionId = await work();
        if (actionId === RENDERED) return;
        const focus = fieldText(form, 'next');
        res.redirect(303, withParams(back, { done: actionId, focus: /^\d+$/.test(focus) ? focus : null }));
      },
      (status, message) => this.renderQueue(res, status, Object.fromEntries(new URLSearchParams(back.split('?')[1] ?? '')), { error: message }),
    );
  }
}

/** The calibrated chance at a raw score (the knots are linear between, flat beyond), for the calibration table. */
function calibrateAt(points: [number, number][], raw: number): number {
  if (points.length === 0) return raw;
  if (raw <= points[0][0]) return points[0][1];
  for (let i = 1; i < points.length; i++) {
    const [x1, y1] = points[i];
    if (raw > x1) continue;
    const [x0, y0] = points[i - 1];
    return x1 === x0 ? y1 : y0 + ((raw - x0) / (x1 - x0)) * (y1 - y0);
  }
  return points[points.length - 1][1];
}

/** A proposal as the queue (dense: one passage shown, the others folded) and the proposal page (everything) show it. */
function proposalModel(item: ProposalView, nextId: string | null, where: 'queue' | 'page') {
  const isNode = item.kind === 'node';
  const evidence = item.evidence.map((e) => ({ ...e, confidencePct: percent(e.confidence) }));
  const shown = where === 'queue' ? 1 : evidence.length;
  return {
    ...item,
    isNode,
    isEdge: !isNode,
    isPending: item.status === 'pending',
    isRejected: item.status === 'rejected',
    href: proposalHref(item.id),
    nextId,
    confidencePct: percent(item.confidence),
    why: {
      signals: item.why.signals,
      raw: item.why.rawConfidence === null ? null : item.why.rawConfidence.toFixed(2),
      calibrated: item.why.rawConfidence !== null && Math.abs(item.why.rawConfidence - item.confidence) > 0.0005,
    },
    similarRejected: item.similarRejected,
    typeOptions: typeOptions(item.type ?? undefined),
    predicateOptions: predicateOptions(item.predicate ?? undefined),
    morePages: Math.max(0, item.pages.length - 8),
    pagesShown: item.pages.slice(0, 8),
    moreEvidence: Math.max(0, item.evidenceTotal - item.evidence.length),
    evidence,
    evidenceShown: evidence.slice(0, shown),
    evidenceFolded: evidence.slice(shown),
    severalPages: item.pages.length > (where === 'queue' ? 1 : 0),
    duplicates: item.duplicates.map((d) => ({ ...d, href: entityHref(d.nodeId), scorePct: percent(d.score) })),
    endpoints: item.endpoints
      ? {
          source: { ...item.endpoints.source, href: item.endpoints.source.entityId ? entityHref(item.endpoints.source.entityId) : item.endpoints.source.proposalId ? proposalHref(item.endpoints.source.proposalId) : null },
          target: { ...item.endpoints.target, href: item.endpoints.target.entityId ? entityHref(item.endpoints.target.entityId) : item.endpoints.target.proposalId ? proposalHref(item.endpoints.target.proposalId) : null },
        }
      : null,
  };
}

/** The active filters as chips, each with the link that removes it (the first page of what remains). */
function filterChips(q: ProposalListQueryDto, status: string | undefined, without: (field: string) => string) {
  const chips: { label: string; removeHref: string }[] = [];
  if (status && status !== 'pending') chips.push({ label: `status: ${status}`, removeHref: without('status') });
  for (const field of FILTER_FIELDS) {
    const value = q[field];
    if (value === undefined) continue;
    chips.push({ label: CHIP_LABELS[field](String(value)), removeHref: without(field) });
  }
  return chips;
}

const CHIP_LABELS: Record<(typeof FILTER_FIELDS)[number], (value: string) => string> = {
  kind: (v) => (v === 'node' ? 'entities only' : 'relations only'),
  type: (v) => `type: ${v}`,
  predicate: (v) => `predicate: ${v.replace(/_/g, ' ')}`,
  cluster: (v) => `cluster: ${v}`,
  page: (v) => `page: ${v}`,
  extractor: (v) => `extractor: ${v}`,
  minConfidence: (v) => `confidence ≥ ${v}`,
  maxConfidence: (v) => `confidence ≤ ${v}`,
  q: (v) => `name contains “${v}”`,
};

function describeFilter(filter: ProposalFilterDto): string {
  const parts = FILTER_FIELDS.filter((f) => f !== 'minConfidence' && filter[f] !== undefined).map((f) => `${f} ${String(filter[f])}`);
  return parts.length ? parts.join(', ') : 'no other filter';
}

function targetHref(target: string | null): string | null {
  const match = /^(entity|edge|proposal):(\d+)$/.exec(target ?? '');
  if (!match) return null;
  return `${KG_BASE}/ui/${match[1] === 'entity' ? 'entities' : `${match[1]}s`}/${match[2]}`;
}
