import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
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
      'A page whose title and body are already stored is reported unchanged and writes no revision. ' +
      'Every batch that changes pages is recorded in the audit log (`page.import`), and is on disk when the answer comes.',
  })
  @ApiOkResponse({ type: ImportBatchResponse })
  @ApiBadRequestResponse({ description: `The batch is malformed, empty or holds more than ${MAX_IMPORT_BATCH} pages.` })
  importBatch(@Body() dto: ImportBatchDto, @Origin() origin: RequestOrigin): Promise<ImportBatchResponse> {
    return this.importer.importBatch(dto.pages, origin);
  }

  @Get('reports/summary')
  @Access('read')
  @ApiOperation({ summary: 'Page and link counts of the whole wiki (what an import reports afterwards)' })
  @ApiOkResponse({ type: WikiSummaryResponse })
  summary(): Promise<WikiSummaryResponse> {
    return this.importer.summary();
  }
}
