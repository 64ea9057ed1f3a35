import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import { pager } from '../web/pager.js';
import { SearchQueryDto } from './search.dto.js';
import { SearchService } from './search.service.js';

const RESULTS_PER_PAGE = 20;

/** The reader's search page behind the header's search box. */
@ApiExcludeController()
@Controller('search')
export class SearchWebController {
  constructor(private readonly searchService: SearchService) {}

  @Access('read')
  @Get()
  async search(@Query() query: SearchQueryDto, @Res() res: Response) {
    const page = query.page ?? 1;
    const result = await this.searchService.search(query.q ?? '', page, RESULTS_PER_PAGE);
    res.render('search', {
      title: result.query ? `Search: ${result.query}` : 'Search',
      // Fills the header's search box.
      searchQuery: result.query,
      query: result.query,
      hits: result.hits.map((hit) => ({ ...hit, tags: hit.tags.map((name) => ({ name, href: `/pages?${new URLSearchParams({ tag: name })}` })) })),
      total: result.total,
      page,
      firstRank: (page - 1) * RESULTS_PER_PAGE + 1,
      noResults: Boolean(result.query) && result.hits.length === 0,
      beyondLastPage: page > 1 && result.hits.length === 0 && result.total === 0,
      createHref: `/page/new?${new URLSearchParams({ title: result.query })}`,
      didYouMean: result.didYouMean,
      pager: pager('/search', { q: result.query }, page, RESULTS_PER_PAGE, result.total),
    });
  }
}
