import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import type { Actor } from '../auth/actor.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { ImportBatchDto, ImportBatchResponse, MAX_IMPORT_BATCH, WikiSummaryResponse } from './dto/import.dto.js';
import { PageImportService } from './page-import.service.js';

@ApiTags('import')
@Controller('api')
export class ImportApiController {
  constructor(private readonly importer: PageImportService) {}

  @Post('import')
  @Access('author')
  @HttpCode(200)
  @ApiOperation({
    summary: `Creates or updates up to ${MAX_IMPORT_BATCH} pages in one request`,
    description: 'Each page is saved on its own: a page that fails is reported with its reason and the others still arrive. ' +
      'A page whose title and body are already stored is reported unchanged and writes no revision.',
  })
  @ApiOkResponse({ type: ImportBatchResponse })
  @ApiBadRequestResponse({ description: `The batch is malformed, empty or holds more than ${MAX_IMPORT_BATCH} pages.` })
  importBatch(@Body() dto: ImportBatchDto, @CurrentActor() actor: Actor): Promise<ImportBatchResponse> {
    return this.importer.importBatch(dto.pages, actor);
  }

  @Get('reports/summary')
  @Access('read')
  @ApiOperation({ summary: 'Page and link counts of the whole wiki (what an import reports afterwards)' })
  @ApiOkResponse({ type: WikiSummaryResponse })
  summary(): Promise<WikiSummaryResponse> {
    return this.importer.summary();
  }
}
