import { Module } from '@nestjs/common';
import { PagesModule } from '../pages/pages.module.js';
import { SearchApiController } from './search.api.controller.js';
import { SearchService } from './search.service.js';
import { SearchWebController } from './search.web.controller.js';

@Module({
  imports: [PagesModule],
  controllers: [SearchApiController, SearchWebController],
  providers: [SearchService],
  exports: [SearchService],
})
export class SearchModule {}
