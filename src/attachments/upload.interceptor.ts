import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { from, switchMap, type Observable } from 'rxjs';
import { KurateConfig } from '../config/kurate-config.js';
import { multipartReader } from './upload-parser.js';

/** Reads `POST /api/attachments`'s multipart body with multer before the route (and its DTO validation) runs. */
@Injectable()
export class UploadInterceptor implements NestInterceptor {
  private readonly read: (request: Request, response: Response) => Promise<void>;

  constructor(config: KurateConfig) {
    this.read = multipartReader({ maxFileBytes: config.attachments.maxBytes, maxFieldBytes: config.http.maxBodyBytes });
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    return from(this.read(http.getRequest<Request>(), http.getResponse<Response>())).pipe(switchMap(() => next.handle()));
  }
}
