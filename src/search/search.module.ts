import { Module } from '@nestjs/common';
import { SearchApiController } from './search.api.controller.js';
import { SearchRepository } from './search.repository.js';
import { SearchService } from './search.service.js';
import { SearchWebController } from './search.web.controller.js';

@Module({
  controllers: [SearchApiController, SearchWebController],
  providers: [SearchService, SearchRepository],
  exports: [SearchService],
})
export class SearchModule {}
