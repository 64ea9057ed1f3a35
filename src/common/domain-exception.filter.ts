import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Request, Response } from 'express';
import { DomainErrorCode, DomainException } from './domain.exception.js';
import { fieldText } from './form-fields.js';

const STATUS_BY_CODE: Record<DomainErrorCode, HttpStatus> = {
  [DomainErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [DomainErrorCode.InvalidInput]: HttpStatus.BAD_REQUEST,
  [DomainErrorCode.InvalidFrontmatter]: HttpStatus.BAD_REQUEST,
  [DomainErrorCode.VersionConflict]: HttpStatus.CONFLICT,
  [DomainErrorCode.SlugTaken]: HttpStatus.CONFLICT,
  [DomainErrorCode.PageInTrash]: HttpStatus.CONFLICT,
  [DomainErrorCode.NotInTrash]: HttpStatus.CONFLICT,
  [DomainErrorCode.Unauthenticated]: HttpStatus.UNAUTHORIZED,
  [DomainErrorCode.Forbidden]: HttpStatus.FORBIDDEN,
  [DomainErrorCode.InvalidCsrfToken]: HttpStatus.FORBIDDEN,
  [DomainErrorCode.InvalidCredentials]: HttpStatus.UNAUTHORIZED,
  [DomainErrorCode.AccountLocked]: HttpStatus.TOO_MANY_REQUESTS,
  [DomainErrorCode.EmailTaken]: HttpStatus.CONFLICT,
  [DomainErrorCode.LastAdmin]: HttpStatus.CONFLICT,
  [DomainErrorCode.PayloadTooLarge]: HttpStatus.PAYLOAD_TOO_LARGE,
  [DomainErrorCode.PathTaken]: HttpStatus.CONFLICT,
  [DomainErrorCode.TooComplex]: HttpStatus.UNPROCESSABLE_ENTITY,
  [DomainErrorCode.Busy]: HttpStatus.SERVICE_UNAVAILABLE,
};

export function httpStatusOf(code: DomainErrorCode): HttpStatus {
  return STATUS_BY_CODE[code];
}

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  code?: string;
  correlationId?: string;
  [detail: string]: unknown;
}

/** Maps any thrown error to a clear response: JSON for the API, an HTML page for browsers. Never a stack trace. */
@Catch()
export class GlobalExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const body = this.toBody(exception, request);
    if (response.headersSent) return;
    const wantsHtml = !request.path.startsWith('/api') && (request.accepts(['json', 'html']) === 'html');
    if (wantsHtml && body.code === DomainErrorCode.Unauthenticated && (request.method === 'GET' || request.method === 'HEAD')) {
      // A browser that needs to log in is sent to the login form, and back here afterwards.
      response.redirect(303, `/login?${new URLSearchParams({ next: request.originalUrl })}`);
    } else if (wantsHtml) {
      // A refused form post (expired session, stale CSRF token…) must not lose what the user typed.
      const unsavedText = request.method === 'POST' ? fieldText(request.body, 'body') : '';
      response.status(body.statusCode).render('error', { title: body.error, error: body, unsavedText });
    } else {
      response.status(body.statusCode).json(body);
    }
  }

  private toBody(exception: unknown, request: Request): ErrorBody {
    if (exception instanceof DomainException) {
      const status = STATUS_BY_CODE[exception.code];
      return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', code: exception.code, message: exception.message, ...exception.details };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const res = exception.getResponse();
      const message =
        typeof res === 'string'
          ? res
          : Array.isArray((res as { message?: unknown }).message)
            ? ((res as { message: string[] }).message).join('; ')
            : String((res as { message?: unknown }).message ?? exception.message);
      return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message };
    }
    const status = httpStatusOfLibraryError(exception);
    if (status) return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message: libraryErrorMessage(status) };
    const correlationId = randomUUID();
    this.logger.error(`${request.method} ${request.originalUrl} failed [${correlationId}]`, exception instanceof Error ? exception.stack : String(exception));
    return { statusCode: 500, error: 'Internal Server Error', message: 'Something went wrong on our side. The error has been logged.', correlationId };
  }
}

/** body-parser and similar middleware throw plain errors that carry an HTTP status. */
function httpStatusOfLibraryError(exception: unknown): number | null {
  const status = (exception as { status?: unknown; statusCode?: unknown } | null)?.status ?? (exception as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : null;
}

function libraryErrorMessage(status: number): string {
  switch (status) {
    case 413:
      return 'The request body is too large.';
    case 415:
      return 'Unsupported content type.';
    default:
      return 'The request could not be read (malformed body or encoding).';
  }
}
