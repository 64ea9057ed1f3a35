import { Body, Controller, Get, HttpCode, Post, Res, UseInterceptors } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { ReviewJobsService } from '../admin/review-jobs.service.js';
import { ServerTimingInterceptor } from '../admin/server-timing.interceptor.js';
import { REVIEW_CSS, REVIEW_SCRIPTS, showingUserErrors } from '../admin/web-helpers.js';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { checkInput } from '../common/input-rules.js';
import { fieldText, readForm } from '../web/forms.js';
import { ImportDto } from './dto/graph-transfer.dto.js';
import { GraphTransferService, type ImportReport } from './graph-transfer.service.js';

/** Export and import in HTML: /admin/knowledge-graph/ui/transfer, and the import form it posts (with a report). */
@ApiExcludeController()
@Controller('admin/knowledge-graph')
@Access('admin')
@UseInterceptors(ServerTimingInterceptor)
export class GraphTransferWebController {
  constructor(
    private readonly transfer: GraphTransferService,
    private readonly jobs: ReviewJobsService,
  ) {}

  @Get('ui/transfer')
  async transferPage(@Res() res: Response) {
    await this.renderTransfer(res, 200, {});
  }

  @Post('ui/import')
  @HttpCode(200)
  async importGraph(@Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const typed = { graph: fieldText(form, 'graph'), mode: fieldText(form, 'mode') || 'pending', reason: fieldText(form, 'reason'), typeMap: fieldText(form, 'typeMap'), predicateMap: fieldText(form, 'predicateMap') };
    const dryRun = fieldText(form, 'dryRun') === 'on';
    let parsed: Record<string, unknown>;
    try {
      parsed = {
        graph: JSON.parse(typed.graph || 'null'),
        mode: typed.mode,
        reason: typed.reason || undefined,
        typeMap: typed.typeMap.trim() ? JSON.parse(typed.typeMap) : undefined,
        predicateMap: typed.predicateMap.trim() ? JSON.parse(typed.predicateMap) : undefined,
        dryRun: dryRun ? 'true' : undefined,
      };
    } catch (error) {
      return this.renderTransfer(res, 400, { error: `That is not valid JSON: ${(error as Error).message}`, typed, dryRun });
    }
    // JSON typed into the form is a request body of its own: the input rules the JSON API applies to every body (no
    // NUL or lone surrogate, at most MAX_INPUT_DEPTH levels deep) apply to it too, before anything walks it.
    const problem = checkInput(parsed, 'body');
    if (problem) return this.renderTransfer(res, 400, { error: `${problem.field}: ${problem.message}`, typed, dryRun });
    const input = readForm(ImportDto, parsed);
    if (!input.ok) return this.renderTransfer(res, 400, { error: input.message, typed, dryRun });
    await showingUserErrors(
      res,
      async () => {
        const report = await this.transfer.import(input.value, origin);
        await this.renderTransfer(res, 200, { report: reportView(report), typed: report.dryRun ? typed : undefined, dryRun });
      },
      (status, message) => this.renderTransfer(res, status, { error: message, typed, dryRun }),
    );
  }

  // --- rendering ---------------------------------------------------------------------------------------------------

  private async renderTransfer(res: Response, status: number, extra: { error?: string; report?: unknown; typed?: Record<string, string>; dryRun?: boolean }) {
    const jobs = await this.jobs.status();
    const typed = extra.typed ?? { graph: '', mode: 'pending', reason: '', typeMap: '', predicateMap: '' };
    res.status(status).render('admin/knowledge-graph-transfer', {
      title: 'Export and import',
      extraCss: REVIEW_CSS,
      scripts: REVIEW_SCRIPTS,
      nav: 'transfer',
      error: extra.error ?? null,
      report: extra.report ?? null,
      typed,
      pendingMode: typed.mode !== 'approved',
      dryRun: extra.dryRun ?? true,
      jobs,
    });
  }
}

function reportView(report: ImportReport) {
  return { ...report, refusedNodes: report.nodes.refused.slice(0, 100), refusedEdges: report.edges.refused.slice(0, 100), mappedTypes: Object.entries(report.mapped.types), mappedPredicates: Object.entries(report.mapped.predicates) };
}
