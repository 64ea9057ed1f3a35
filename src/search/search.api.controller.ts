import { Controller, Get, Query } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import type { Actor } from '../auth/actor.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { searchOptionsOf } from './search-request.js';
import { SearchQueryDto, SearchResultDto, SearchSuggestQueryDto } from './search.dto.js';
import { SearchService } from './search.service.js';

@ApiTags('search')
@Controller('api/search')
export class SearchApiController {
  constructor(private readonly searchService: SearchService) {}

  @Get()
  @Access('read')
  @ApiOkResponse({ type: SearchResultDto })
  @ApiForbiddenResponse({ description: 'includeExcluded=true without the admin role.' })
  search(@Query() query: SearchQueryDto, @CurrentActor() actor: Actor) {
    return this.searchService.search(query.q ?? '', query.page ?? 1, query.perPage ?? 20, searchOptionsOf(query, actor));
  }

  @Get('suggest')
  @Access('read')
  async suggest(@Query() query: SearchSuggestQueryDto) {
    return { suggestions: await this.searchService.suggest(query.q ?? '', query.limit ?? 8) };
  }
}
