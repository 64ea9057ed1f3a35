import { Module, type OnModuleInit, Inject } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { KurateConfig } from '../config/kurate-config.js';
import { JobWorker } from '../jobs/job-worker.service.js';
import { JobsModule } from '../jobs/jobs.module.js';
import { PagesModule } from '../pages/pages.module.js';
import { AttachmentBlobsRepository } from './attachment-blobs.repository.js';
import { AttachmentStoreSweep } from './attachment-store-sweep.js';
import { AttachmentsApiController } from './attachments.api.controller.js';
import { AttachmentsRepository } from './attachments.repository.js';
import { AttachmentsService } from './attachments.service.js';
import { AttachmentsWebController } from './attachments.web.controller.js';
import { FilesController } from './files.controller.js';
import { PageFileRefsService } from './page-file-refs.service.js';
import { ATTACHMENT_STORE, type AttachmentStore } from './stores/attachment-store.js';
import { DatabaseStore } from './stores/database.store.js';
import { LocalDirectoryStore } from './stores/local-directory.store.js';
import { S3Store } from './stores/s3.store.js';
import { UploadInterceptor } from './upload.interceptor.js';

const SWEEP_EVERY_MS = 60 * 60_000;

/** The store KURATE_ATTACHMENTS_STORE names. */
export function attachmentStoreFor(config: KurateConfig, blobs: AttachmentBlobsRepository): AttachmentStore {
  const { store, directory, s3 } = config.attachments;
  if (store === 'local') return new LocalDirectoryStore(directory!);
  if (store === 's3') return new S3Store(s3!);
  return new DatabaseStore(blobs);
}

/**
 * Files beside the pages (docs/attachments.md): uploads, the pluggable store, serving under strict headers, the
 * access rule through the referencing pages, and the pages' view of their files (it registers with PageSaveHooks
 * and PageFiles, so pages imports nothing of it). Workers sweep the store of what crashes leave (AttachmentStoreSweep).
 */
@Module({
  imports: [PagesModule, AuditModule, JobsModule],
  controllers: [AttachmentsApiController, FilesController, AttachmentsWebController],
  providers: [
    AttachmentsRepository, AttachmentBlobsRepository, AttachmentsService, AttachmentStoreSweep, PageFileRefsService, UploadInterceptor,
    { provide: ATTACHMENT_STORE, useFactory: attachmentStoreFor, inject: [KurateConfig, AttachmentBlobsRepository] },
  ],
  exports: [AttachmentsService, PageFileRefsService],
})
export class AttachmentsModule implements OnModuleInit {
  constructor(
    @Inject(ATTACHMENT_STORE) private readonly store: AttachmentStore,
    private readonly worker: JobWorker,
    private readonly sweep: AttachmentStoreSweep,
  ) {}

  /** A store that cannot be written stops the start with a sentence naming the variable to fix. */
  async onModuleInit(): Promise<void> {
    await this.store.check();
    // At a worker's start and hourly, whatever the store.
    this.worker.maintainEvery('The attachment store sweep', SWEEP_EVERY_MS, async (stopped) => {
      await this.sweep.sweep({ stopped });
    });
  }
}
