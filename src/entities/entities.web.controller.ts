import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import { roleAtLeast, type Actor } from '../auth/actor.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { pager } from '../web/pager.js';
import { EntityIdPipe } from './entity-id.pipe.js';
import { EntityPageQueryDto } from './entity-query.dto.js';
import { EntityReaderService } from './entity-reader.service.js';
import { entityHref } from '../web/reader-urls.js';
import { entityPageModel } from './entity-view-model.js';

/** The reader's page of an approved knowledge-graph entity (read-only; curation lives under /admin/knowledge-graph/ui). */
@ApiExcludeController()
@Controller('entities')
export class ReaderEntitiesWebController {
  constructor(private readonly entities: EntityReaderService) {}

  @Access('read')
  @Get(':id')
  async view(@Param('id', EntityIdPipe) id: string, @Query() query: EntityPageQueryDto, @CurrentActor() actor: Actor, @Res() res: Response) {
    const reading = await this.entities.read(id, query.page ?? 1);
    const pages = pager(entityHref(id), {}, reading.pages.page, reading.pages.perPage, reading.pages.total);
    res.render('entity-view', entityPageModel(reading, { isAdmin: roleAtLeast(actor.role, 'admin'), pager: pages }));
  }
}
