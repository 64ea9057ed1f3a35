import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseInterceptors } from '@nestjs/common';
import {
  ApiBadRequestResponse, ApiBearerAuth, ApiConflictResponse, ApiCreatedResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse,
  ApiOperation, ApiParam, ApiTags, ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { CurationService } from './curation.service.js';
import {
  CreateEdgeDto, CreateEntityDto, DeleteEdgeDto, DeleteEntityDto, EntityListQueryDto, MergeEntityDto, SynonymDto, UpdateEdgeDto, UpdateEntityDto,
} from './dto/curation.dto.js';
import { EntityPagesService } from './entity-pages.service.js';
import { ReviewIdPipe } from '../admin/review-id.pipe.js';
import { ServerTimingInterceptor } from '../admin/server-timing.interceptor.js';

const ENTITY = { name: 'id', description: 'An entity (node) id.' };
const EDGE = { name: 'id', description: 'An edge id.' };

/** Curating the approved graph as JSON (admins only): entities and edges. Every change is journaled (undo) and audited. */
@ApiTags('knowledge-graph curation')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'Not logged in, or a bad token.' })
@ApiForbiddenResponse({ description: 'Not an admin.' })
@Controller('admin/knowledge-graph')
@Access('admin')
@UseInterceptors(ServerTimingInterceptor)
export class EntitiesApiController {
  constructor(
    private readonly pages: EntityPagesService,
    private readonly curation: CurationService,
  ) {}

  @Get('entities')
  @ApiOperation({ summary: 'Entities (visible), by name: search, type filter, counts of mentions, pages and typed edges' })
  @ApiOkResponse({ description: '{rows, total, types: [{type, n}]}' })
  list(@Query() q: EntityListQueryDto) {
    return this.pages.list({ q: q.q, type: q.type, limit: q.limit ?? 50, offset: q.offset ?? 0 });
  }

  @Post('entities')
  @ApiOperation({ summary: 'Creates an entity by hand (origin manual: it stands on its own, whatever the inclusion policy)' })
  @ApiCreatedResponse({ description: '{actionId, summary, entity}' })
  @ApiConflictResponse({ description: 'An entity with that name and type exists.' })
  create(@Body() dto: CreateEntityDto, @Origin() origin: RequestOrigin) {
    return this.curation.createEntity(dto, origin);
  }

  @Get('entities/:id')
  @ApiOperation({ summary: 'An entity: provenance, the pages and passages that mention it, typed edges in and out, co-mentions' })
  @ApiParam(ENTITY)
  @ApiNotFoundResponse({ description: 'No such entity, or the inclusion policy hides it.' })
  get(@Param('id', ReviewIdPipe) id: string, @Query('passages') passages?: string) {
    return this.pages.page(id, Number.parseInt(passages ?? '1', 10) || 1);
  }

  @Get('entities/:id/graph')
  @ApiOperation({ summary: 'The entity’s neighbourhood for a graph view: nodes (with type) and edges (typed and co-mention)' })
  @ApiParam(ENTITY)
  graph(@Param('id', ReviewIdPipe) id: string) {
    return this.pages.graph(id);
  }

  @Patch('entities/:id')
  @ApiOperation({ summary: 'Edits an entity (name, type, aliases, description); a new name keeps the old signature leading to it' })
  @ApiParam(ENTITY)
  @ApiConflictResponse({ description: 'Another entity has that name and type (merge instead).' })
  update(@Param('id', ReviewIdPipe) id: string, @Body() dto: UpdateEntityDto, @Origin() origin: RequestOrigin) {
    return this.curation.updateEntity(id, dto, origin);
  }

  @Post('entities/:id/synonyms')
  @HttpCode(200)
  @ApiOperation({ summary: 'Adds a synonym (alias): search understands it as naming this entity; audited and undoable' })
  @ApiParam(ENTITY)
  addSynonym(@Param('id', ReviewIdPipe) id: string, @Body() dto: SynonymDto, @Origin() origin: RequestOrigin) {
    return this.curation.addSynonym(id, dto.name, origin);
  }

  @Delete('entities/:id/synonyms/:name')
  @ApiOperation({ summary: 'Removes a synonym (case does not matter); audited and undoable' })
  @ApiParam(ENTITY)
  @ApiParam({ name: 'name', description: 'The synonym to remove.' })
  removeSynonym(@Param('id', ReviewIdPipe) id: string, @Param('name') name: string, @Origin() origin: RequestOrigin) {
    return this.curation.removeSynonym(id, name, origin);
  }

  @Delete('entities/:id')
  @ApiOperation({ summary: 'Deletes an entity with its edges (dryRun: only the counts); reject: true also rejects its signature' })
  @ApiParam(ENTITY)
  async remove(@Param('id', ReviewIdPipe) id: string, @Body() dto: DeleteEntityDto, @Origin() origin: RequestOrigin) {
    if (dto.dryRun) return { dryRun: true, ...(await this.curation.deleteImpact(id)) };
    return this.curation.deleteEntity(id, { reject: dto.reject === true, reason: dto.reason ?? null }, origin);
  }

  @Post('entities/:id/merge')
  @HttpCode(200)
  @ApiOperation({ summary: 'Merges this entity into intoId: aliases united, edges and mentions re-pointed, duplicate edges collapsed; undoable' })
  @ApiParam(ENTITY)
  @ApiBadRequestResponse({ description: 'Merging an entity into itself.' })
  merge(@Param('id', ReviewIdPipe) id: string, @Body() dto: MergeEntityDto, @Origin() origin: RequestOrigin) {
    return this.curation.merge(id, dto.intoId, origin);
  }

  @Post('edges')
  @ApiOperation({ summary: 'Creates a typed edge between two entities (origin manual)' })
  @ApiCreatedResponse({ description: '{actionId, summary, edge}' })
  @ApiConflictResponse({ description: 'The same edge exists.' })
  createEdge(@Body() dto: CreateEdgeDto, @Origin() origin: RequestOrigin) {
    return this.curation.createEdge(dto.sourceId, dto.targetId, dto.predicate, origin);
  }

  @Get('edges/:id')
  @ApiOperation({ summary: 'An edge with its provenance' })
  @ApiParam(EDGE)
  getEdge(@Param('id', ReviewIdPipe) id: string) {
    return this.pages.edge(id);
  }

  @Patch('edges/:id')
  @ApiOperation({ summary: 'Edits a typed edge: predicate, direction, weight' })
  @ApiParam(EDGE)
  @ApiConflictResponse({ description: 'The edited edge would duplicate another.' })
  updateEdge(@Param('id', ReviewIdPipe) id: string, @Body() dto: UpdateEdgeDto, @Origin() origin: RequestOrigin) {
    return this.curation.updateEdge(id, dto, origin);
  }

  @Delete('edges/:id')
  @ApiOperation({ summary: 'Deletes an edge (undoable)' })
  @ApiParam(EDGE)
  deleteEdge(@Param('id', ReviewIdPipe) id: string, @Origin() origin: RequestOrigin) {
    return this.curation.deleteEdge(id, { reject: false, reason: null }, origin);
  }

  @Post('edges/:id/delete-and-reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deletes a typed edge and rejects its signature, so that extraction does not propose it again' })
  @ApiParam(EDGE)
  deleteAndReject(@Param('id', ReviewIdPipe) id: string, @Body() dto: DeleteEdgeDto, @Origin() origin: RequestOrigin) {
    return this.curation.deleteEdge(id, { reject: true, reason: dto.reason ?? null }, origin);
  }
}
