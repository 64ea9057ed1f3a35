import type { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { roleAtLeast } from '../auth/actor.js';
import type { RequestWithActor } from '../auth/current-actor.decorator.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { formatBytes } from '../pages/markdown/file-embeds.js';

/** The multipart field that carries the file (one per request). */
export const FILE_FIELD = 'file';

/** The editor's upload form (no JavaScript needed): `POST /attachments/upload`. */
export const UPLOAD_FORM_PATH = '/attachments/upload';

/** A request multer has read: the file (when one was sent) and the other fields in `body`. */
export interface UploadRequest extends Request {
  file?: Express.Multer.File;
  /** Set by {@link uploadFormParser} when the form's file could not be taken; the route shows it in the form. */
  uploadProblem?: DomainException;
}

export interface UploadLimits {
  maxFileBytes: number;
  /** The largest text field (the page's text travels with the editor's upload form). */
  maxFieldBytes: number;
}

/** Reads a multipart body into memory with multer: one file of at most `maxFileBytes`, a few small fields. */
export function multipartReader(limits: UploadLimits): (request: Request, response: Response) => Promise<void> {
  const options: multer.Options & { defParamCharset: string } = {
    storage: multer.memoryStorage(),
    // Browsers and curl send UTF-8 file names without saying so (multer 2 has the option; its types do not yet).
    defParamCharset: 'utf8',
    limits: { fileSize: limits.maxFileBytes, files: 1, fields: 20, parts: 21, fieldSize: limits.maxFieldBytes },
  };
  const handler = multer(options).single(FILE_FIELD);
  return (request, response) =>
    new Promise<void>((resolve, reject) =>
      handler(request, response, (error: unknown) => {
        if (error) return reject(uploadProblemOf(error, limits));
        // A part with an empty file name (`filename=""`) is read as a text field: say what is missing, rather than
        // let the route's validation answer that a field "file" should not exist.
        const body = (request as UploadRequest).body as Record<string, unknown> | undefined;
        if (!(request as UploadRequest).file && typeof body?.[FILE_FIELD] === 'string') {
          return reject(new DomainException(DomainErrorCode.InvalidInput, `The file in the field "${FILE_FIELD}" came without a file name: send it with one (curl: -F "${FILE_FIELD}=@logo.png").`));
        }
        resolve();
      }),
    );
}

/** multer's and busboy's errors, as the clear 4xx a user can act on. */
export function uploadProblemOf(error: unknown, limits: UploadLimits): unknown {
  if (!(error instanceof multer.MulterError)) {
    // busboy: a body that is not valid multipart.
    const message = error instanceof Error ? error.message : '';
    if (/multipart|boundary|unexpected end|malformed/i.test(message)) {
      return new DomainException(DomainErrorCode.InvalidInput, 'The upload could not be read: the request is not a complete multipart/form-data body.');
    }
    return error;
  }
  switch (error.code) {
    case 'LIMIT_FILE_SIZE':
      return new DomainException(
        DomainErrorCode.PayloadTooLarge,
        `The file is larger than ${formatBytes(limits.maxFileBytes)}, the largest file this wiki accepts (KURATE_ATTACHMENTS_MAX_BYTES).`,
        { maxBytes: limits.maxFileBytes },
      );
    case 'LIMIT_FIELD_VALUE':
      return new DomainException(DomainErrorCode.PayloadTooLarge, `A form field is larger than ${formatBytes(limits.maxFieldBytes)} (KURATE_MAX_BODY_BYTES).`);
    case 'LIMIT_UNEXPECTED_FILE':
    case 'LIMIT_FILE_COUNT':
      return new DomainException(DomainErrorCode.InvalidInput, `Send one file per request, in the form field "${FILE_FIELD}".`);
    default:
      return new DomainException(DomainErrorCode.InvalidInput, `The upload could not be read: ${error.message}.`);
  }
}

/**
 * The editor's upload form is multipart, and its CSRF token travels in that body: this reads it after the identity
 * is known and before the CSRF check (auth's pipeline runs it there), for authors only. A problem with the file (too
 * large, say) does not stop the request: the route shows it in the form with the author's text.
 */
export function uploadFormParser(limits: UploadLimits): RequestHandler {
  const read = multipartReader(limits);
  return (request: Request, response: Response, next: NextFunction) => {
    const actor = (request as RequestWithActor).actor;
    if (request.method !== 'POST' || request.path !== UPLOAD_FORM_PATH || !request.is('multipart/form-data') || !roleAtLeast(actor?.role ?? null, 'author')) {
      return next();
    }
    read(request, response).then(
      () => next(),
      (error: unknown) => {
        if (!(error instanceof DomainException)) return next(error);
        (request as UploadRequest).uploadProblem = error;
        request.body ??= {};
        next();
      },
    );
  };
}
