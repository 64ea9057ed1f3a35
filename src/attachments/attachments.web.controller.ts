import { Controller, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import type { Actor } from '../auth/actor.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { httpStatusOf } from '../common/domain-exception.filter.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { ShowsInputProblemsInForm } from '../common/input-rules.js';
import { PageRenderService } from '../pages/page-render.service.js';
import { editFormModel, formError, newFormModel } from '../pages/page-view-models.js';
import { PagesService } from '../pages/pages.service.js';
import { fieldText } from '../web/forms.js';
import { embedSnippetOf } from './attachment-paths.js';
import { AttachmentsService } from './attachments.service.js';
import { UPLOAD_FORM_PATH, type UploadRequest } from './upload-parser.js';

/**
 * The editor's upload button, which works without JavaScript: the edit (or new-page) form is posted here as
 * multipart with its file; the file is stored, an embed of it is added to the end of the text, and the same form
 * comes back with everything the author typed, unsaved, to go on editing and save. A refused file (too large, say)
 * brings the form back with the reason and the text untouched.
 */
@ApiExcludeController()
@Controller()
export class AttachmentsWebController {
  constructor(
    private readonly attachments: AttachmentsService,
    private readonly pages: PagesService,
    private readonly renderer: PageRenderService,
  ) {}

  @Access('author')
  @Post(UPLOAD_FORM_PATH.slice(1))
  @ShowsInputProblemsInForm()
  async upload(@Query('page') pageSlug: unknown, @Req() request: UploadRequest, @CurrentActor() actor: Actor, @Res() res: Response): Promise<void> {
    const form = request.body as unknown;
    const typed = { title: fieldText(form, 'title'), body: fieldText(form, 'body'), message: fieldText(form, 'message'), baseVersion: Number(fieldText(form, 'baseVersion')) || 0 };
    const page = typeof pageSlug === 'string' && pageSlug !== '' ? await this.pages.get(pageSlug) : null;
    const show = async (status: number, body: string, options: { error?: DomainException; notice?: string }) => {
      const previewHtml = await this.renderer.preview(body, actor).then((r) => r.html, () => null);
      const error = options.error ? formError(options.error, body) : null;
      if (page) {
        res.status(status).render('page-edit', editFormModel(page, { body, baseVersion: typed.baseVersion || page.version, message: typed.message }, previewHtml, error, options.notice ?? null));
      } else {
        res.status(status).render('page-new', newFormModel({ title: typed.title, body, message: typed.message }, error, options.notice ?? null, previewHtml));
      }
    };
    const file = request.file;
    const problem = request.uploadProblem ?? (file ? null : new DomainException(DomainErrorCode.InvalidInput, 'Choose a file to upload first.'));
    if (problem) return show(httpStatusOf(problem.code), typed.body, { error: problem });
    try {
      const { attachment, status } = await this.attachments.upload({ bytes: file!.buffer, fileName: file!.originalname, onConflict: 'rename' }, actor);
      const snippet = embedSnippetOf(attachment.path);
      const body = `${typed.body.replace(/\s*$/, '')}${typed.body.trim() ? '\n\n' : ''}${snippet}\n`;
      const what = status === 'unchanged' ? 'was already stored' : 'was uploaded';
      await show(200, body, { notice: `"${attachment.path}" ${what}; ${snippet} was added to the end of the text. Save the page to keep it.` });
    } catch (error) {
      if (!(error instanceof DomainException)) throw error;
      await show(httpStatusOf(error.code), typed.body, { error });
    }
  }
}
