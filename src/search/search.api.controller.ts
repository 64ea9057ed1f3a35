import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { SearchQueryDto, SearchSuggestQueryDto } from './search.dto.js';
import { SearchService } from './search.service.js';

@ApiTags('search')
@Controller('api/search')
export class SearchApiController {
  constructor(private readonly searchService: SearchService) {}

  @Get()
  @Access('read')
  search(@Query() query: SearchQueryDto) {
    return this.searchService.search(query.q ?? '', query.page ?? 1, query.perPage ?? 20, { explain: query.explain === 'true' });
  }

  @Get('suggest')
  @Access('read')
  async suggest(@Query() query: SearchSuggestQueryDto) {
    return { suggestions: await this.searchService.suggest(query.q ?? '', query.limit ?? 8) };
  }
}
