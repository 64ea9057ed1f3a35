import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { EntityIdPipe } from './entity-id.pipe.js';
import { EntityPageQueryDto } from './entity-query.dto.js';
import { EntityReaderService } from './entity-reader.service.js';

/** The reader's entity page as JSON: what /entities/:id shows, under the same visibility rules. */
@ApiTags('entities')
@Controller('api/entities')
export class ReaderEntitiesApiController {
  constructor(private readonly entities: EntityReaderService) {}

  @Access('read')
  @Get(':id')
  @ApiOkResponse({ description: 'The approved entity, its typed relations to visible entities, and a page of the pages that mention it.' })
  @ApiNotFoundResponse({ description: 'No such entity, or the inclusion policy hides it.' })
  get(@Param('id', EntityIdPipe) id: string, @Query() query: EntityPageQueryDto) {
    return this.entities.read(id, query.page ?? 1);
  }
}
