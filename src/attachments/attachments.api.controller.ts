import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiConflictResponse, ApiConsumes, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import type { Actor } from '../auth/actor.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { SlugPipe } from '../pages/slug.pipe.js';
import { AttachmentsService } from './attachments.service.js';
import {
  AttachmentListResponse, AttachmentsQueryDto, attachmentResponse, listedAttachmentResponse, PageFileResponse, pageFileResponse,
  UploadAttachmentBody, UploadAttachmentDto, UploadResponse,
} from './dto/attachment.dto.js';
import { joinPathParam } from './files.controller.js';
import { UploadInterceptor } from './upload.interceptor.js';
import { FILE_FIELD, type UploadRequest } from './upload-parser.js';

@ApiTags('attachments')
@Controller('api')
export class AttachmentsApiController {
  constructor(private readonly attachments: AttachmentsService) {}

  @Access('author')
  @Post('attachments')
  @UseInterceptors(UploadInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: UploadAttachmentBody })
  @ApiOperation({
    summary: 'Uploads one file (multipart/form-data: `file`, optional `path` and `onConflict`)',
    description: 'The type is sniffed from the bytes. 201 when a file was created, 200 when one was replaced or the same bytes were already there. ' +
      'Pages whose links name the file reach it at once.',
  })
  @ApiOkResponse({ type: UploadResponse })
  @ApiPayloadTooLargeResponse({ description: 'The file is larger than KURATE_ATTACHMENTS_MAX_BYTES (default 25 MiB).' })
  @ApiConflictResponse({ description: '`onConflict=fail` and the path holds another file.' })
  async upload(@Req() request: UploadRequest, @Body() dto: UploadAttachmentDto, @CurrentActor() actor: Actor, @Res({ passthrough: true }) response: Response): Promise<UploadResponse> {
    const file = request.file;
    if (!file) throw new DomainException(DomainErrorCode.InvalidInput, `Send the file as multipart/form-data in the field "${FILE_FIELD}".`);
    const { attachment, status } = await this.attachments.upload({ bytes: file.buffer, fileName: file.originalname, path: dto.path, onConflict: dto.onConflict ?? 'rename' }, actor);
    response.status(status === 'created' ? 201 : 200);
    return { ...attachmentResponse(attachment), status };
  }

  @Access('read')
  @Get('attachments')
  @ApiOperation({ summary: 'The files you may read, by path, with the pages that reference each (docs/attachments.md, the access rule)' })
  @ApiOkResponse({ type: AttachmentListResponse })
  async list(@Query() query: AttachmentsQueryDto, @CurrentActor() actor: Actor): Promise<AttachmentListResponse> {
    const perPage = query.perPage ?? 100;
    const page = query.page ?? 1;
    const { items, total } = await this.attachments.list(actor, perPage, (page - 1) * perPage);
    return { items: items.map(listedAttachmentResponse), total, page, perPage };
  }

  @Access('admin')
  @Delete('attachments/*path')
  @HttpCode(204)
  @ApiOperation({ summary: 'Deletes a file for good (admins; audited). Pages that embed it show it missing.' })
  async delete(@Param('path') path: string | string[], @Origin() origin: RequestOrigin): Promise<void> {
    await this.attachments.delete(joinPathParam(path), origin.actor, origin.ip);
  }

  @Access('read')
  @Get('pages/:slug/attachments')
  @ApiOperation({ summary: "The files a page's text references, with the version that added each" })
  @ApiOkResponse({ type: [PageFileResponse] })
  async pageFiles(@Param('slug', SlugPipe) slug: string): Promise<{ items: PageFileResponse[] }> {
    return { items: (await this.attachments.filesOfPage(slug)).map(pageFileResponse) };
  }
}
