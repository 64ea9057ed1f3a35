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
  async dashboard(@Query('notice') notice: unknown, @Res() res: Response) {
    const [clusters, pending, pendingProposals, audit] = await Promise.all([
      this.policy.listClusters(),
      this.policy.pending(),
      this.derivations.pendingProposalCount(),
      this.policy.auditTrail({ limit: 10 }),
    ]);
    // After the others: the check reads in a transaction of its own (one snapshot for every invariant).
    const health = await this.healthPanel.read();
    res.render('admin/kg-policy', {
      title: 'Knowledge-graph policy',
      notice: noticeOf(notice),
      reviewDays: this.policy.reviewDays,
      pendingProposals,
      staleCount: clusters.filter((c) => c.stale).length,
      clusters: clusters.map((c) => ({ ...c, href: clusterHref(c.cluster) })),
      pending: pending.map((p) => ({ ...p, href: clusterHref(p.cluster) })),
      audit,
      health: health && { ...health, broken: health.invariants.filter((i) => i.count > 0) },
    });
  }

  @Get('ui/clusters/:cluster')
  async cluster(@Param('cluster') cluster: string, @Query('notice') notice: unknown, @Res() res: Response) {
    await this.renderCluster(res, 200, cluster, { notice: noticeOf(notice) });
  }

  /** Step 1 of a change: the estimate, with a form to confirm it. */
  @Post('ui/clusters/:cluster/estimate')
  @HttpCode(200)
  async estimate(@Param('cluster') cluster: string, @Body() form: unknown, @Res() res: Response) {
    const action = fieldText(form, 'action') as EstimateAction;
    const reason = fieldText(form, 'reason').trim().slice(0, 1000);
    const typed = { action, reason };
    const input = action === 'clear' ? readForm(ClearPolicyDto, { reason }) : readForm(SetPolicyDto, { action, reason });
    if (!ESTIMATE_ACTIONS.includes(action)) return this.renderCluster(res, 400, cluster, { error: 'Choose include, exclude or clear.', typed });
    if (!input.ok) return this.renderCluster(res, 400, cluster, { error: input.message, typed });
    await this.userErrors(res, cluster, typed, async () => {
      const estimate = await this.impact.estimate(cluster, action);
      res.render('admin/kg-policy-confirm', {
        title: `Confirm: ${cluster}`,
        cluster,
        href: clusterHref(cluster),
        action,
        reason,
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
        return res.redirect(303, `${clusterHref(cluster)}?notice=cleared`);
      }
      const input = readForm(SetPolicyDto, { action, reason });
      if (!input.ok) throw new DomainException(DomainErrorCode.InvalidInput, input.message);
      await this.policy.setPolicy(cluster, input.value, origin);
      res.redirect(303, `${clusterHref(cluster)}?notice=set`);
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

function noticeOf(value: unknown): string | null {
  return typeof value === 'string' ? (NOTICES[value] ?? null) : null;
}
