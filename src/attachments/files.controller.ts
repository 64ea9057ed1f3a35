import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { create as contentDisposition } from 'content-disposition';
import type { Request, Response } from 'express';
import rangeParser from 'range-parser';
import { Access } from '../auth/access.decorator.js';
import type { Actor } from '../auth/actor.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { baseNameOf } from './attachment-paths.js';
import { AttachmentsService } from './attachments.service.js';
import { servingRuleOf } from './content-type.js';

/** A `*path` route parameter: Express 5 hands over its steps. */
export function joinPathParam(value: string | string[]): string {
  return Array.isArray(value) ? value.join('/') : value;
}

@ApiTags('attachments')
@Controller()
export class FilesController {
  constructor(private readonly attachments: AttachmentsService) {}

  @Access('read')
  @Get('files/*path')
  @ApiOperation({
    summary: 'A stored file, by its path (who may read it follows the pages that reference it)',
    description: 'Served with `X-Content-Type-Options: nosniff` and a Content-Security-Policy that allows nothing to run. SVG, HTML and every ' +
      'type not known to be inert come as downloads (`Content-Disposition: attachment`). Supports `Range` and `If-None-Match`.',
  })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The bytes, with the type sniffed when the file was stored.' })
  async serve(@Param('path') raw: string | string[], @CurrentActor() actor: Actor, @Req() request: Request, @Res() response: Response): Promise<void> {
    const { attachment, bytes } = await this.attachments.open(joinPathParam(raw), actor);
    const rule = servingRuleOf(attachment.mediaType);
    const etag = `"${attachment.sha256}"`;
    response.set({
      'Content-Type': rule.contentType,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': rule.contentSecurityPolicy,
      // The wiki's pages frame PDFs; nobody else may.
      'X-Frame-Options': 'SAMEORIGIN',
      'Content-Disposition': contentDisposition(baseNameOf(attachment.path), { type: rule.inline ? 'inline' : 'attachment' }),
      // Who may read a file can change (its page goes to the trash): no shared cache keeps it, browsers revalidate.
      'Cache-Control': 'private, no-cache',
      ETag: etag,
      'Accept-Ranges': 'bytes',
    });
    if (request.headers['if-none-match'] === etag) {
      response.status(304).end();
      return;
    }
    const range = request.headers.range ? rangeParser(bytes.length, request.headers.range, { combine: true }) : null;
    if (range === -1) {
      response.status(416).set('Content-Range', `bytes */${bytes.length}`).end();
      return;
    }
    // One range (what players ask for when seeking); several, or a malformed header, get the whole file.
    if (Array.isArray(range) && range.type === 'bytes' && range.length === 1) {
      const { start, end } = range[0];
      response.status(206).set({ 'Content-Range': `bytes ${start}-${end}/${bytes.length}`, 'Content-Length': String(end - start + 1) });
      response.end(bytes.subarray(start, end + 1));
      return;
    }
    response.status(200).set('Content-Length', String(bytes.length)).end(bytes);
  }
}
