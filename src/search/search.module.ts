import { Module } from '@nestjs/common';
import { LlmModule } from '../llm/llm.module.js';
import { SearchApiController } from './search.api.controller.js';
import { SearchGraphRepository } from './search-graph.repository.js';
import { SearchVectorRepository } from './search-vector.repository.js';
import { SearchRepository } from './search.repository.js';
import { SearchService } from './search.service.js';
import { SearchWebController } from './search.web.controller.js';

@Module({
  imports: [LlmModule],
  controllers: [SearchApiController, SearchWebController],
  providers: [SearchService, SearchRepository, SearchVectorRepository, SearchGraphRepository],
  exports: [SearchService],
})
export class SearchModule {}
