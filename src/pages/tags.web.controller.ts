import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { pager } from '../web/pager.js';
import { PagingQueryDto } from './dto/page.dto.js';
import { pageSummary, tagHref } from './page-view-models.js';
import { PagesService } from './pages.service.js';

const PAGES_PER_TAG = 50;
const MAX_TAG_LENGTH = 200;

/** Tag pages: every tag (frontmatter `tags:` and `#tags` in the text), and the pages under one. */
@ApiExcludeController()
@Controller('tags')
export class TagsWebController {
  constructor(private readonly pages: PagesService) {}

  @Access('read')
  @Get()
  async index(@Res() res: Response) {
    const tags = await this.pages.allTags();
    res.render('tags', { title: 'Tags', tags: tags.map((tag) => ({ ...tag, href: tagHref(tag.name) })) });
  }

  @Access('read')
  @Get(':tag')
  async tag(@Param('tag') tag: string, @Query() query: PagingQueryDto, @Res() res: Response) {
    if (tag.trim() === '' || tag.length > MAX_TAG_LENGTH) throw new DomainException(DomainErrorCode.InvalidInput, `A tag has 1 to ${MAX_TAG_LENGTH} characters.`);
    const page = query.page ?? 1;
    const { items, total } = await this.pages.tagged(tag, PAGES_PER_TAG, (page - 1) * PAGES_PER_TAG);
    const nested = [...new Set(items.flatMap((item) => item.tags.filter((t) => t.startsWith(`${tag}/`))))].sort();
    res.render('tag', {
      title: `#${tag}`,
      tag,
      total,
      items: items.map((item) => ({ ...pageSummary(item), tags: item.tags.map((name) => ({ name, href: tagHref(name) })) })),
      nested: nested.map((name) => ({ name, href: tagHref(name) })),
      parent: tag.includes('/') ? { name: tag.slice(0, tag.lastIndexOf('/')), href: tagHref(tag.slice(0, tag.lastIndexOf('/'))) } : null,
      pager: pager(tagHref(tag), {}, page, PAGES_PER_TAG, total),
    });
  }
}
