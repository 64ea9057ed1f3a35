import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { PagingQueryDto } from './dto/page.dto.js';
import { PagesService } from './pages.service.js';

const MAX_TAG_LENGTH = 200;

class TagCount {
  @ApiProperty() name: string;
  @ApiProperty() count: number;
}

class TaggedPage {
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty({ type: String, nullable: true }) cluster: string | null;
  @ApiProperty({ type: [String] }) tags: string[];
}

class TaggedPages {
  @ApiProperty() tag: string;
  @ApiProperty({ type: [TaggedPage] }) items: TaggedPage[];
  @ApiProperty() total: number;
}

/** Tags as JSON: what /tags and /tags/:tag show (frontmatter `tags:` and `#tags` written in the text). */
@ApiTags('pages')
@Controller('api/tags')
export class TagsApiController {
  constructor(private readonly pages: PagesService) {}

  @Access('read')
  @Get()
  @ApiOkResponse({ type: [TagCount] })
  list(): Promise<TagCount[]> {
    return this.pages.allTags();
  }

  @Access('read')
  @Get(':tag')
  @ApiOkResponse({ type: TaggedPages, description: 'Live pages tagged with the tag or a tag nested under it (`tag/sub`), by title.' })
  async tagged(@Param('tag') tag: string, @Query() query: PagingQueryDto): Promise<TaggedPages> {
    if (tag.trim() === '' || tag.length > MAX_TAG_LENGTH) throw new DomainException(DomainErrorCode.InvalidInput, `A tag has 1 to ${MAX_TAG_LENGTH} characters.`);
    const perPage = query.perPage ?? 50;
    const { items, total } = await this.pages.tagged(tag, perPage, ((query.page ?? 1) - 1) * perPage);
    return { tag, items, total };
  }
}
