import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, UseInterceptors } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { fieldText, readForm } from '../web/forms.js';
import { pager } from '../web/pager.js';
import { CurationService } from './curation.service.js';
import { CreateEntityDto, EntityListQueryDto, UpdateEdgeDto, UpdateEntityDto } from './dto/curation.dto.js';
import { EntityPagesService } from './entity-pages.service.js';
import { ID_PATTERN, ReviewErrors } from '../admin/review-errors.js';
import { ReviewIdPipe } from '../admin/review-id.pipe.js';
import { REVIEW_TYPES } from '../admin/review-vocabulary.js';
import { ServerTimingInterceptor } from '../admin/server-timing.interceptor.js';
import { UndoService } from './undo.service.js';
import {
  edgeHref, entityHref, GRAPH_SCRIPTS, KG_BASE, options, percent, predicateOptions, REVIEW_CSS, showingUserErrors,
  typeOptions, withParams,
} from '../admin/web-helpers.js';

const ENTITIES = `${KG_BASE}/ui/entities`;
const PER_PAGE = 50;
/** The deepest page of the entity list a request may ask for (the lists elsewhere cap theirs at 100,000 too). */
const MAX_PAGE = 100_000;
// After undoing these from a notice, the page the notice was on still exists.
const UNDO_STAYS = new Set(['entity_update', 'entity_merge', 'edge_create', 'edge_update', 'edge_delete']);

/** Curation in HTML: the entity list and page (with its neighbourhood graph), edit, delete, merge, and edges. */
@ApiExcludeController()
@Controller('admin/knowledge-graph/ui')
@Access('admin')
@UseInterceptors(ServerTimingInterceptor)
export class KgEntitiesWebController {
  constructor(
    private readonly pages: EntityPagesService,
    private readonly curation: CurationService,
    private readonly undo: UndoService,
  ) {}

  @Get('entities')
  async list(@Query() query: Record<string, unknown>, @Res() res: Response) {
    await this.renderList(res, 200, query, {});
  }

  @Post('entities')
  @HttpCode(200)
  async create(@Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const typed = { name: fieldText(form, 'name'), type: fieldText(form, 'type'), aliases: fieldText(form, 'aliases'), description: fieldText(form, 'description') };
    const input = readForm(CreateEntityDto, { ...typed, aliases: splitAliases(typed.aliases) });
    await showingUserErrors(
      res,
      async () => {
        if (!input.ok) throw ReviewErrors.invalid(input.message);
        const result = await this.curation.createEntity(input.value, origin);
        res.redirect(303, withParams(entityHref(result.entity.id), { done: result.actionId }));
      },
      (status, message) => this.renderList(res, status, {}, { error: message, typed }),
    );
  }

  @Get('entities/:id')
  async entity(@Param('id', ReviewIdPipe) id: string, @Query() query: Record<string, unknown>, @Res() res: Response) {
    const passages = Number.parseInt(fieldText(query, 'passages'), 10) || 1;
    await this.renderEntity(res, 200, id, passages, { done: await this.doneNotice(query.done, entityHref(id)) });
  }

  @Get('entities/:id/edit')
  async editForm(@Param('id', ReviewIdPipe) id: string, @Res() res: Response) {
    const entity = await this.pages.entity(id);
    await this.renderEdit(res, 200, id, { name: entity.name, type: entity.type, aliases: entity.aliases.join('\n'), description: entity.description });
  }

  @Post('entities/:id/edit')
  @HttpCode(200)
  async edit(@Param('id', ReviewIdPipe) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const typed = { name: fieldText(form, 'name'), type: fieldText(form, 'type'), aliases: fieldText(form, 'aliases'), description: fieldText(form, 'description') };
    const input = readForm(UpdateEntityDto, { ...typed, aliases: splitAliases(typed.aliases) });
    await showingUserErrors(
      res,
      async () => {
        if (!input.ok) throw ReviewErrors.invalid(input.message);
        const result = await this.curation.updateEntity(id, input.value, origin);
        res.redirect(303, withParams(entityHref(id), { done: result.actionId }));
      },
      (status, message) => this.renderEdit(res, status, id, typed, message),
    );
  }

  @Post('entities/:id/synonyms')
  @HttpCode(200)
  async addSynonym(@Param('id', ReviewIdPipe) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    await this.synonymAction(res, id, () => this.curation.addSynonym(id, fieldText(form, 'name'), origin));
  }

  @Post('entities/:id/synonyms/remove')
  @HttpCode(200)
  async removeSynonym(@Param('id', ReviewIdPipe) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    await this.synonymAction(res, id, () => this.curation.removeSynonym(id, fieldText(form, 'name'), origin));
  }

  @Get('entities/:id/delete')
  async deleteConfirm(@Param('id', ReviewIdPipe) id: string, @Res() res: Response) {
    await this.renderDelete(res, 200, id, null);
  }

  @Post('entities/:id/delete')
  @HttpCode(200)
  async delete(@Param('id', ReviewIdPipe) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const reject = fieldText(form, 'reject') === 'on';
    const reason = fieldText(form, 'reason').trim().slice(0, 1000) || null;
    await showingUserErrors(
      res,
      async () => {
        const result = await this.curation.deleteEntity(id, { reject, reason }, origin);
        res.redirect(303, withParams(ENTITIES, { done: result.actionId }));
      },
      (status, message) => this.renderDelete(res, status, id, message),
    );
  }

  @Get('entities/:id/merge')
  async mergeForm(@Param('id', ReviewIdPipe) id: string, @Query('q') q: unknown, @Res() res: Response) {
    await this.renderMerge(res, 200, id, typeof q === 'string' ? q.trim().slice(0, 200) : '', null);
  }

  @Post('entities/:id/merge')
  @HttpCode(200)
  async merge(@Param('id', ReviewIdPipe) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const into = fieldText(form, 'into').trim();
    await showingUserErrors(
      res,
      async () => {
        if (!ID_PATTERN.test(into)) throw ReviewErrors.invalid('Choose the entity to merge into.');
        const result = await this.curation.merge(id, into, origin);
        res.redirect(303, withParams(entityHref(into), { done: result.actionId }));
      },
      (status, message) => this.renderMerge(res, status, id, fieldText(form, 'q'), message),
    );
  }

  @Post('edges')
  @HttpCode(200)
  async createEdge(@Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const from = fieldText(form, 'from');
    const other = fieldText(form, 'other').trim();
    const predicate = fieldText(form, 'predicate');
    const outgoing = fieldText(form, 'direction') !== 'in';
    if (!ID_PATTERN.test(from)) throw ReviewErrors.invalid('The form lost its entity; open the entity page again.');
    await showingUserErrors(
      res,
      async () => {
        const otherId = await this.resolveEntity(other);
        const result = await this.curation.createEdge(outgoing ? from : otherId, outgoing ? otherId : from, predicate, origin);
        res.redirect(303, withParams(entityHref(from), { done: result.actionId }));
      },
      (status, message) => this.renderEntity(res, status, from, 1, { error: message, edgeForm: { other, predicate, outgoing } }),
    );
  }

  @Get('edges/:id')
  async edge(@Param('id', ReviewIdPipe) id: string, @Query('done') done: unknown, @Res() res: Response) {
    await this.renderEdge(res, 200, id, { done: await this.doneNotice(done, edgeHref(id)) });
  }

  @Post('edges/:id')
  @HttpCode(200)
  async editEdge(@Param('id', ReviewIdPipe) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const input = readForm(UpdateEdgeDto, {
      predicate: fieldText(form, 'predicate') || undefined,
      swapDirection: fieldText(form, 'swap') === 'on' ? 'true' : undefined,
      weight: fieldText(form, 'weight') || undefined,
    });
    await showingUserErrors(
      res,
      async () => {
        if (!input.ok) throw ReviewErrors.invalid(input.message);
        const result = await this.curation.updateEdge(id, input.value, origin);
        res.redirect(303, withParams(edgeHref(id), { done: result.actionId }));
      },
      (status, message) => this.renderEdge(res, status, id, { error: message }),
    );
  }

  @Post('edges/:id/delete')
  @HttpCode(200)
  async deleteEdge(@Param('id', ReviewIdPipe) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const reject = fieldText(form, 'reject') === 'on';
    const reason = fieldText(form, 'reason').trim().slice(0, 1000) || null;
    const back = fieldText(form, 'back');
    await showingUserErrors(
      res,
      async () => {
        const result = await this.curation.deleteEdge(id, { reject, reason }, origin);
        res.redirect(303, withParams(ID_PATTERN.test(back) ? entityHref(back) : ENTITIES, { done: result.actionId }));
      },
      (status, message) => this.renderEdge(res, status, id, { error: message }),
    );
  }

  // --- rendering ---------------------------------------------------------------------------------------------------

  private async renderList(res: Response, status: number, query: Record<string, unknown>, extra: { error?: string; typed?: Record<string, string> }) {
    const input = readForm(EntityListQueryDto, { q: fieldText(query, 'q') || undefined, type: fieldText(query, 'type') || undefined });
    const filter = input.ok ? input.value : new EntityListQueryDto();
    // A page past any list is the last one's neighbour, not an offset PostgreSQL's bigint cannot hold.
    const page = Math.min(MAX_PAGE, Math.max(1, Number.parseInt(fieldText(query, 'page'), 10) || 1));
    const { rows, total, types } = await this.pages.list({ q: filter.q, type: filter.type, limit: PER_PAGE, offset: (page - 1) * PER_PAGE });
    res.status(status === 200 && !input.ok ? 400 : status).render('admin/entity-list', {
      title: 'Entities',
      extraCss: REVIEW_CSS,
      nav: 'entities',
      error: extra.error ?? (input.ok ? null : input.message),
      done: await this.doneNotice(query.done, ENTITIES),
      q: filter.q ?? '',
      typeOptions: options(REVIEW_TYPES, filter.type, Object.fromEntries(types.map((t) => [t.type, `${t.type} (${t.n})`]))),
      total,
      rows: rows.map((r) => ({ ...r, href: entityHref(r.id) })),
      pager: pager(ENTITIES, { q: filter.q, type: filter.type }, page, PER_PAGE, total),
      typed: extra.typed ?? { name: '', type: '', aliases: '', description: '' },
      createTypeOptions: typeOptions(extra.typed?.type || 'concept'),
    });
  }

  /** Runs a synonym edit and shows the entity again: with its undo notice, or with the error and a 4xx. */
  private async synonymAction(res: Response, id: string, act: () => Promise<{ actionId: string }>) {
    await showingUserErrors(
      res,
      async () => {
        const result = await act();
        res.redirect(303, withParams(entityHref(id), { done: result.actionId }));
      },
      (status, message) => this.renderEntity(res, status, id, 1, { error: message }),
    );
  }

  private async renderEntity(res: Response, status: number, id: string, passagePage: number, extra: { done?: unknown; error?: string; edgeForm?: { other: string; predicate: string; outgoing: boolean } }) {
    const page = await this.pages.page(id, passagePage);
    const predicates = [...new Set([...page.out, ...page.in].map((e) => e.predicate))].sort();
    const edgeView = (e: (typeof page.out)[number], otherId: string, otherName: string, otherType: string) => ({ ...e, href: edgeHref(e.id), otherHref: entityHref(otherId), otherName, otherType });
    const passageHref = (p: number) => (p >= 1 && p <= page.passagePages ? withParams(entityHref(id), { passages: p > 1 ? String(p) : null }) : null);
    res.status(status).render('admin/entity', {
      title: page.entity.name,
      extraCss: REVIEW_CSS,
      scripts: GRAPH_SCRIPTS,
      nav: 'entities',
      done: extra.done ?? null,
      error: extra.error ?? null,
      ...page,
      out: page.out.map((e) => edgeView(e, e.targetId, e.targetName, e.targetType)),
      in: page.in.map((e) => edgeView(e, e.sourceId, e.sourceName, e.sourceType)),
      coMentions: page.coMentions.map((e) => ({ ...e, href: edgeHref(e.id), otherHref: entityHref(e.otherId) })),
      provenance: page.provenance.map((p) => ({ ...p, confidencePct: percent(p.confidence) })),
      graphUrl: `${KG_BASE}/entities/${id}/graph`,
      graphPredicates: predicates,
      types: REVIEW_TYPES,
      prevPassagesHref: passageHref(page.passagePage - 1),
      nextPassagesHref: passageHref(page.passagePage + 1),
      editHref: `${entityHref(id)}/edit`,
      deleteHref: `${entityHref(id)}/delete`,
      mergeHref: `${entityHref(id)}/merge`,
      synonymsHref: `${entityHref(id)}/synonyms`,
      edgeForm: extra.edgeForm ?? { other: '', predicate: 'related_to', outgoing: true },
      edgePredicateOptions: predicateOptions(extra.edgeForm?.predicate ?? 'related_to'),
    });
  }

  private async renderEdit(res: Response, status: number, id: string, typed: Record<string, string>, error: string | null = null) {
    const entity = await this.pages.entity(id);
    res.status(status).render('admin/entity-edit', {
      title: `Edit ${entity.name}`, extraCss: REVIEW_CSS, nav: 'entities', entity, href: entityHref(id), typed, error,
      typeOptions: typeOptions(typed.type),
    });
  }

  private async renderDelete(res: Response, status: number, id: string, error: string | null) {
    const { entity, impact } = await this.curation.deleteImpact(id);
    res.status(status).render('admin/entity-delete', {
      title: `Delete ${entity.name}`, extraCss: REVIEW_CSS, nav: 'entities', entity, impact, href: entityHref(id), error,
      edges: impact.typedEdges + impact.coMentionEdges,
    });
  }

  private async renderMerge(res: Response, status: number, id: string, q: string, error: string | null) {
    const entity = await this.pages.entity(id);
    const candidates = q ? (await this.pages.list({ q, limit: 30, offset: 0 })).rows.filter((r) => r.id !== id) : [];
    res.status(status).render('admin/entity-merge', {
      title: `Merge ${entity.name}`, extraCss: REVIEW_CSS, nav: 'entities', entity, href: entityHref(id), q, error,
      candidates: candidates.map((c) => ({ ...c, href: entityHref(c.id) })), searched: q !== '',
    });
  }

  private async renderEdge(res: Response, status: number, id: string, extra: { done?: unknown; error?: string }) {
    const { edge, provenance } = await this.pages.edge(id);
    res.status(status).render('admin/knowledge-graph-edge', {
      title: `Edge ${edge.sourceName} ${edge.predicate} ${edge.targetName}`,
      extraCss: REVIEW_CSS,
      nav: 'entities',
      done: extra.done ?? null,
      error: extra.error ?? null,
      edge: { ...edge, sourceHref: entityHref(edge.sourceId), targetHref: entityHref(edge.targetId), isTyped: edge.kind === 'typed' },
      provenance: provenance.map((p) => ({ ...p, confidencePct: percent(p.confidence) })),
      predicateOptions: predicateOptions(edge.predicate),
    });
  }

  private async doneNotice(done: unknown, here: string) {
    if (typeof done !== 'string' || !ID_PATTERN.test(done)) return null;
    try {
      const { action } = await this.undo.get(done);
      return { id: action.id, summary: action.summary, undoable: action.undoable, returnUrl: UNDO_STAYS.has(action.action) ? here : ENTITIES };
    } catch {
      return null;
    }
  }

  /** The other end of a new edge: an id, or an exact (case-insensitive) name that only one entity has. */
  private async resolveEntity(text: string): Promise<string> {
    if (ID_PATTERN.test(text)) return text;
    if (text === '') throw ReviewErrors.invalid('Name the other entity (its name, or its id).');
    const { rows } = await this.pages.list({ q: text, limit: 20, offset: 0 });
    const exact = rows.filter((r) => r.name.toLowerCase() === text.toLowerCase());
    if (exact.length === 1) return exact[0].id;
    if (exact.length > 1) throw ReviewErrors.invalid(`Several entities are called “${text}” (${exact.map((r) => `${r.type} ${r.id}`).join(', ')}); give the id.`);
    throw ReviewErrors.invalid(`No entity is called “${text}”${rows.length ? `; did you mean ${rows.slice(0, 5).map((r) => `“${r.name}”`).join(', ')}?` : '.'}`);
  }
}

function splitAliases(text: string): string[] {
  return text.split(/[\n,]/).map((a) => a.trim()).filter(Boolean);
}

