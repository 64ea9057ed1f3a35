import { Module } from '@nestjs/common';
import { ReaderEntitiesApiController } from './entities.api.controller.js';
import { ReaderEntitiesWebController } from './entities.web.controller.js';
import { EntityReaderService } from './entity-reader.service.js';
import { EntityReadsRepository } from './entity-reads.repository.js';

/** Readers' pages of approved knowledge-graph entities (/entities/:id and /api/entities/:id). */
@Module({
  controllers: [ReaderEntitiesWebController, ReaderEntitiesApiController],
  providers: [EntityReaderService, EntityReadsRepository],
  // Search shows an approved entity's card when a query names it.
  exports: [EntityReaderService],
})
export class EntitiesModule {}
