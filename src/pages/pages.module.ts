import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PageGraphService } from './page-graph.service.js';
import { PageLinkEntity } from './page-link.entity.js';
import { PageRedirectEntity } from './page-redirect.entity.js';
import { PageRenderService } from './page-render.service.js';
import { PageRevisionEntity } from './page-revision.entity.js';
import { PageEntity } from './page.entity.js';
import { PageLinksRepository } from './page-links.repository.js';
import { PagesApiController } from './pages.api.controller.js';
import { PagesRepository } from './pages.repository.js';
import { PagesService } from './pages.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([PageEntity, PageRevisionEntity, PageLinkEntity, PageRedirectEntity])],
  controllers: [PagesApiController],
  providers: [PagesRepository, PageLinksRepository, PagesService, PageGraphService, PageRenderService],
  exports: [PagesService, PageGraphService, PageRenderService],
})
export class PagesModule {}
