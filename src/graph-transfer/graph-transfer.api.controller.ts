import { Body, Controller, Get, HttpCode, Post, Query, Res, UseInterceptors } from '@nestjs/common';
import {
  ApiBearerAuth, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ServerTimingInterceptor } from '../admin/server-timing.interceptor.js';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { ExportQueryDto, ImportDto } from './dto/graph-transfer.dto.js';
import { GraphTransferService } from './graph-transfer.service.js';

/** The knowledge graph's export and validated import (JSON, admins only). */
@ApiTags('knowledge-graph')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'Not logged in, or a bad token.' })
@ApiForbiddenResponse({ description: 'Not an admin.' })
@Controller('admin/knowledge-graph')
@Access('admin')
@UseInterceptors(ServerTimingInterceptor)
export class GraphTransferApiController {
  constructor(private readonly transfer: GraphTransferService) {}

  @Get('export')
  @ApiOperation({
    summary: 'The approved, visible graph as JSON (format kurate.knowledge-graph, version 1, with provenance) or GraphML',
    description: 'Ordered by id and without an export timestamp: the same graph always gives the same bytes. See docs/review.md for the schema.',
  })
  @ApiProduces('application/json', 'application/graphml+xml')
  async export(@Query() q: ExportQueryDto, @Res({ passthrough: true }) res: Response): Promise<string> {
    const graphml = q.format === 'graphml';
    res.type(graphml ? 'application/graphml+xml; charset=utf-8' : 'application/json; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="knowledge-graph.${graphml ? 'graphml' : 'json'}"`);
    return graphml ? this.transfer.exportGraphMl() : this.transfer.exportJson();
  }

  @Post('import')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Imports a JSON graph as pending proposals, or (with a reason) as approved; validated first, with a report',
    description: 'Unknown types and predicates are mapped (typeMap, predicateMap) or refused; edges whose endpoints are not nodes of the file are refused. dryRun: report only.',
  })
  @ApiOkResponse({ description: 'The report: accepted, already known, refused (with reasons), mappings used, and the undoable action.' })
  import(@Body() dto: ImportDto, @Origin() origin: RequestOrigin) {
    return this.transfer.import(dto, origin);
  }
}
