import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import type { Actor } from '../auth/actor.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { pager } from '../web/pager.js';
import { searchOptionsOf } from './search-request.js';
import { SearchQueryDto } from './search.dto.js';
import { SearchService } from './search.service.js';
import { searchPageModel } from './search-view-model.js';

const RESULTS_PER_PAGE = 20;

/** The reader's search page behind the header's search box. */
@ApiExcludeController()
@Controller('search')
export class SearchWebController {
  constructor(private readonly searchService: SearchService) {}

  @Access('read')
  @Get()
  async search(@Query() query: SearchQueryDto, @CurrentActor() actor: Actor, @Res() res: Response) {
    const page = query.page ?? 1;
    // The page always explains (inside a closed <details>): "why this result" needs no second request.
    const options = { ...searchOptionsOf(query, actor), explain: true };
    const result = await this.searchService.search(query.q ?? '', page, RESULTS_PER_PAGE, options);
    const params = { q: result.query, ...result.filters, includeExcluded: options.includeExcluded ? 'true' : undefined };
    res.render('search', searchPageModel(result, pager('/search', params, page, RESULTS_PER_PAGE, result.total)));
  }
}
