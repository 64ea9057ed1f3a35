import { Module } from '@nestjs/common';
import { EmbeddedPostgresModule } from '../db/database.module.js';
import { PageChangeFeed } from './page-change-feed.js';
import { PageViewCache } from './page-view-cache.js';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { PageGraphService } from './page-graph.service.js';
import { PageLinkEntity } from './page-link.entity.js';
import { PageRedirectEntity } from './page-redirect.entity.js';
import { PageRenderService } from './page-render.service.js';
import { PageSaveHooks } from './page-save-hooks.js';
import { PageRevisionEntity } from './page-revision.entity.js';
import { PageEntity } from './page.entity.js';
import { PageLinksRepository } from './page-links.repository.js';
import { PagesApiController } from './pages.api.controller.js';
import { ImportApiController } from './import.api.controller.js';
import { PageImportService } from './page-import.service.js';
import { PagesRepository } from './pages.repository.js';
import { PagesService } from './pages.service.js';
import { PagesWebController } from './pages.web.controller.js';
import { TagsApiController } from './tags.api.controller.js';
import { TagsWebController } from './tags.web.controller.js';
import { TransclusionRepository } from './transclusion.repository.js';
import { TransclusionService } from './transclusion.service.js';
import { PageFiles } from './page-files.js';
import { MarkdownPool } from './markdown-pool.js';

@Module({
  imports: [TypeOrmModule.forFeature([PageEntity, PageRevisionEntity, PageLinkEntity, PageRedirectEntity]), AuditModule, EmbeddedPostgresModule],
  controllers: [PagesApiController, PagesWebController, ImportApiController, TagsWebController, TagsApiController],
  providers: [PagesRepository, PageLinksRepository, PagesService, PageGraphService, PageRenderService, PageImportService, PageSaveHooks,
    PageChangeFeed, PageViewCache, TransclusionRepository, TransclusionService, PageFiles, MarkdownPool],
  // PageSaveHooks: modules that react to saves (policy, extraction) register with it, so pages imports none of them;
  // PageFiles likewise (attachments). PageChangeFeed: other writes that change what a page shows (a file uploaded).
  exports: [PageViewCache, PagesService, PageGraphService, PageRenderService, PageSaveHooks, PageFiles, PageChangeFeed],
})
export class PagesModule {}
