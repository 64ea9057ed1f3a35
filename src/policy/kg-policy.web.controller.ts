import { Body, Controller, Get, HttpCode, HttpException, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { isSafeSlug } from '../pages/markdown/slug.js';
import { fieldText, readForm } from '../web/forms.js';
import { AuditQueryDto, ClearPolicyDto, ESTIMATE_ACTIONS, SetPolicyDto, type EstimateAction } from './dto/kg-policy.dto.js';
import { KgDerivationRepository } from './kg-derivation.repository.js';
import { KgHealthPanel } from './kg-health-panel.js';
import { PolicyImpactService } from './policy-impact.service.js';
import { PolicyService } from './policy.service.js';
import { noticeOf as noticeFrom } from '../web/notices.js';

const NOTICES: Record<string, string> = {
  set: 'Policy saved; the cluster’s pages were reconciled.',
  cleared: 'Policy cleared; the parent’s policy or the default (exclude) applies again.',
  reviewed: 'Marked as reviewed.',
  purged: 'Purged: the rows derived only from this cluster’s excluded pages are gone (see the audit trail for the counts).',
};
const STATUS_BY_CODE: Partial<Record<DomainErrorCode, number>> = {
  [DomainErrorCode.InvalidInput]: 400,
  [DomainErrorCode.NotFound]: 404,
};

const DASHBOARD = '/admin/kg-policy';
/** The most clusters one bulk form may set. */
const MAX_BULK_CLUSTERS = 500;
const clusterHref = (cluster: string) => `/admin/kg-policy/ui/clusters/${encodeURIComponent(cluster)}`;

/**
 * The admins' front door to the inclusion policy: /admin/kg-policy and /admin/kg-policy/ui/*, plain HTML forms
 * (no inline script or style). Every change shows its estimate first; a purge needs the cluster name typed.
 * The JSON REST API shares the /admin/kg-policy prefix (kg-policy.api.controller.ts).
 */
@ApiExcludeController()
@Controller('admin/kg-policy')
@Access('admin')
export class KgPolicyWebController {
  constructor(
    private readonly policy: PolicyService,
    private readonly impact: PolicyImpactService,
    private readonly derivations: KgDerivationRepository,
    private readonly healthPanel: KgHealthPanel,
  ) {}

  @Get()
  async dashboard(@Query('notice') notice: unknown, @Query('cluster') cluster: unknown, @Query('count') count: unknown, @Res() res: Response) {
    await this.renderDashboard(res, 200, { notice: noticeOf(notice, { cluster, count }) });
  }

  /** Several clusters at once (the group of clusters without a policy): one transaction, one audit row each. */
  @Post('ui/bulk')
  @HttpCode(200)
  async bulk(@Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const raw = (form as Record<string, unknown> | null)?.clusters;
    const clusters = [...new Set((Array.isArray(raw) ? raw : [raw]).filter((c): c is string => typeof c === 'string' && c.trim() !== '').map((c) => c.trim()))];
    const input = readForm(SetPolicyDto, { action: fieldText(form, 'action'), reason: fieldText(form, 'reason') });
    const error =
      clusters.length === 0 ? 'Select at least one cluster (the boxes beside them).'
      : clusters.length > MAX_BULK_CLUSTERS ? `At most ${MAX_BULK_CLUSTERS} clusters at once.`
      : !input.ok ? input.message : null;
    if (error || !input.ok) return this.renderDashboard(res, 400, { error: error ?? 'Choose include or exclude.', bulkReason: fieldText(form, 'reason') });
    try {
      await this.policy.setPolicies(clusters, input.value, origin);
    } catch (e) {
      const status = e instanceof DomainException ? STATUS_BY_CODE[e.code] : undefined;
      if (!status) throw e;
      return this.renderDashboard(res, status, { error: (e as Error).message, bulkReason: fieldText(form, 'reason') });
    }
    res.redirect(303, `/admin/kg-policy?notice=bulk&count=${clusters.length}`);
  }

  @Get('ui/clusters/:cluster')
  async cluster(@Param('cluster') cluster: string, @Query('notice') notice: unknown, @Res() res: Response) {
    await this.renderCluster(res, 200, cluster, { notice: noticeOf(notice) });
  }

  /** Step 1 of a change: the estimate, with a form to confirm it. */
  @Post('ui/clusters/:cluster/estimate')
  @HttpCode(200)
  async estimate(@Param('cluster') cluster: string, @Query('reason') later: unknown, @Body() form: unknown, @Res() res: Response) {
    const action = fieldText(form, 'action') as EstimateAction;
    const reason = fieldText(form, 'reason').trim().slice(0, 1000);
    const typed = { action, reason };
    // From the dashboard's rows (?reason=later) the reason may come on the confirmation page instead.
    const reasonLater = later === 'later' && reason === '';
    const input = action === 'clear' ? readForm(ClearPolicyDto, { reason }) : readForm(SetPolicyDto, { action, reason });
    if (!ESTIMATE_ACTIONS.includes(action)) return this.renderCluster(res, 400, cluster, { error: 'Choose include, exclude or clear.', typed });
    if (!input.ok && !reasonLater) return this.renderCluster(res, 400, cluster, { error: input.message, typed });
    await this.userErrors(res, cluster, typed, async () => {
      const estimate = await this.impact.estimate(cluster, action);
      res.render('admin/kg-policy-confirm', {
        title: `Confirm: ${cluster}`,
        cluster,
        href: clusterHref(cluster),
        action,
        reason,
        reasonLater,
        returnUrl: dashboardReturn(form),
        estimate,
        isClear: action === 'clear',
      });
    });
  }

  /** Step 2 of a change: apply it. */
  @Post('ui/clusters/:cluster/apply')
  @HttpCode(200)
  async apply(@Param('cluster') cluster: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const action = fieldText(form, 'action');
    const reason = fieldText(form, 'reason');
    const typed = { action, reason };
    await this.userErrors(res, cluster, typed, async () => {
      if (action === 'clear') {
        const input = readForm(ClearPolicyDto, { reason });
        if (!input.ok) throw new DomainException(DomainErrorCode.InvalidInput, input.message);
        await this.policy.clearPolicy(cluster, input.value.reason, origin);
        return res.redirect(303, afterChange(form, cluster, 'cleared'));
      }
      const input = readForm(SetPolicyDto, { action, reason });
      if (!input.ok) throw new DomainException(DomainErrorCode.InvalidInput, input.message);
      await this.policy.setPolicy(cluster, input.value, origin);
      res.redirect(303, afterChange(form, cluster, 'set'));
    });
  }

  @Post('ui/clusters/:cluster/review')
  @HttpCode(200)
  async review(@Param('cluster') cluster: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const note = fieldText(form, 'note').trim().slice(0, 1000) || undefined;
    await this.userErrors(res, cluster, {}, async () => {
      await this.policy.markReviewed(cluster, note, origin);
      res.redirect(303, `${clusterHref(cluster)}?notice=reviewed`);
    });
  }

  /** Without `confirm`: the dry run and the typed-confirmation form. With it: the purge. */
  @Post('ui/clusters/:cluster/purge')
  @HttpCode(200)
  async purge(@Param('cluster') cluster: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const confirm = fieldText(form, 'confirm');
    const confirming = fieldText(form, 'step') === 'confirm';
    await this.userErrors(res, cluster, {}, async () => {
      if (confirming && confirm === cluster) {
        await this.impact.purge(cluster, { dryRun: false, confirm }, origin);
        return res.redirect(303, `${clusterHref(cluster)}?notice=purged`);
      }
      const dryRun = await this.impact.purge(cluster, { dryRun: true }, origin);
      const error = confirming ? `Nothing was deleted: type "${cluster}" exactly to confirm the purge.` : null;
      res.status(error ? 400 : 200).render('admin/kg-policy-purge', {
        title: `Purge ${cluster}`,
        cluster,
        href: clusterHref(cluster),
        dryRun,
        nothingToDelete: dryRun.deleted.every((d) => d.rows === 0),
        error,
      });
    });
  }

  @Get('ui/explain')
  async explain(@Query('slug') raw: unknown, @Res() res: Response) {
    const slug = typeof raw === 'string' ? raw.trim() : '';
    const model = { title: 'Explain a page', slug, explanation: null as unknown, error: null as string | null };
    if (slug === '') return res.render('admin/kg-policy-explain', model);
    if (!isSafeSlug(slug)) return res.status(400).render('admin/kg-policy-explain', { ...model, error: `"${slug.slice(0, 80)}" is not a page slug (lower-case letters, digits and dashes).` });
    try {
      const explanation = await this.policy.explain(slug);
      res.render('admin/kg-policy-explain', { ...model, explanation, clusters: explanation.clusters.map((c) => ({ name: c, href: clusterHref(c) })) });
    } catch (error) {
      if (!(error instanceof DomainException) || error.code !== DomainErrorCode.NotFound) throw error;
      res.status(404).render('admin/kg-policy-explain', { ...model, error: error.message });
    }
  }

  @Get('ui/audit')
  async audit(@Query() query: unknown, @Res() res: Response) {
    const input = readForm(AuditQueryDto, query);
    const cluster = fieldText(query, 'cluster').trim();
    const filter = input.ok ? { cluster: input.value.cluster || undefined, limit: input.value.limit ?? 200 } : { limit: 200 };
    try {
      const entries = await this.policy.auditTrail(filter);
      res.status(input.ok ? 200 : 400).render('admin/kg-policy-audit', {
        title: 'Policy audit trail', cluster, entries, error: input.ok ? null : input.message,
      });
    } catch (error) {
      if (!(error instanceof DomainException)) throw error;
      res.status(400).render('admin/kg-policy-audit', { title: 'Policy audit trail', cluster, entries: [], error: error.message });
    }
  }

  private async renderDashboard(res: Response, status: number, extra: { notice?: string | null; error?: string; bulkReason?: string }) {
    const [clusters, pendingProposals, audit] = await Promise.all([
      this.policy.listClusters(),
      this.derivations.pendingProposalCount(),
      this.policy.auditTrail({ limit: 10 }),
    ]);
    // After the others: the check reads in a transaction of its own (one snapshot for every invariant).
    const health = await this.healthPanel.read();
    const rows = clusters.map((c, i) => ({
      ...c,
      href: clusterHref(c.cluster),
      slugId: i,
      canInclude: c.action !== 'include',
      canExclude: c.action !== 'exclude',
      estimateAction: c.effectiveAction === 'include' ? 'exclude' : 'include',
      canPurge: c.effectiveAction !== 'include',
    }));
    const undecided = rows.filter((c) => !c.action && !c.inheritedFrom);
    res.status(status).render('admin/kg-policy', {
      title: 'Knowledge-graph policy',
      notice: extra.notice ?? null,
      error: extra.error ?? null,
      bulkReason: extra.bulkReason ?? '',
      reviewDays: this.policy.reviewDays,
      pendingProposals,
      staleCount: clusters.filter((c) => c.stale).length,
      clusters: rows,
      decided: rows.filter((c) => c.action || c.inheritedFrom),
      undecided,
      undecidedPages: undecided.reduce((sum, c) => sum + c.pages, 0),
      audit,
      health: health && { ...health, broken: health.invariants.filter((i) => i.count > 0) },
    });
  }

  private async renderCluster(res: Response, status: number, cluster: string, extra: { notice?: string | null; error?: string; typed?: Record<string, string> }) {
    const detail = await this.policy.getCluster(cluster);
    const typed = extra.typed ?? {};
    const chosen = typed.action ?? (detail.action === 'exclude' ? 'include' : 'exclude');
    res.status(status).render('admin/kg-policy-cluster', {
      title: `Cluster ${cluster}`,
      cluster: detail,
      href: clusterHref(cluster),
      parentHref: detail.inheritedFrom ? clusterHref(detail.inheritedFrom) : null,
      reviewDays: this.policy.reviewDays,
      notice: extra.notice ?? null,
      error: extra.error ?? null,
      reason: typed.reason ?? '',
      actions: ESTIMATE_ACTIONS.filter((a) => a !== 'clear' || detail.action !== null).map((value) => ({
        value, checked: value === chosen, label: ACTION_LABELS[value],
      })),
      canPurge: detail.effectiveAction !== 'include',
    });
  }

  /** Shows a user's mistake (unknown cluster, bad input, a refused purge) on the cluster page instead of an error page. */
  private async userErrors(res: Response, cluster: string, typed: Record<string, string>, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      const status = error instanceof DomainException ? STATUS_BY_CODE[error.code] : error instanceof HttpException && error.getStatus() === 409 ? 409 : undefined;
      if (!status) throw error;
      // An unknown cluster has no page to show the message on: renderCluster then throws the 404 itself.
      await this.renderCluster(res, status, cluster, { error: (error as Error).message, typed });
    }
  }
}

const ACTION_LABELS: Record<EstimateAction, string> = {
  include: 'Include: the extractor may read these pages',
  exclude: 'Exclude: hide what derives only from these pages (kept, so re-including costs nothing)',
  clear: 'Clear this cluster’s own policy (its parent’s policy, or the default exclude, applies)',
};

function noticeOf(value: unknown, facts: { cluster?: unknown; count?: unknown } = {}): string | null {
  if (value === 'bulk' && typeof facts.count === 'string' && /^\d{1,4}$/.test(facts.count)) {
    return `Policy saved for ${facts.count === '1' ? '1 cluster' : `${facts.count} clusters`}; their pages were reconciled.`;
  }
  const text = noticeFrom(NOTICES, value);
  return text && typeof facts.cluster === 'string' && facts.cluster.length <= 250 ? `${facts.cluster}: ${text}` : text;
}

/** Forms on the dashboard come back to it; the cluster page's forms to the cluster page. */
function dashboardReturn(form: unknown): string | null {
  return fieldText(form, 'return') === DASHBOARD ? DASHBOARD : null;
}

function afterChange(form: unknown, cluster: string, notice: string): string {
  return dashboardReturn(form)
    ? `${DASHBOARD}?notice=${notice}&cluster=${encodeURIComponent(cluster)}`
    : `${clusterHref(cluster)}?notice=${notice}`;
}
