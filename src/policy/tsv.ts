import { Injectable, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { map, type Observable } from 'rxjs';

export const TSV_MEDIA_TYPE = 'text/tab-separated-values';

export interface TsvColumn<T> {
  header: string;
  value: (row: T) => unknown;
}

export interface TsvShape<T> {
  /** The rows of the JSON answer (e.g. `body.items`, or `[body]` for one object). */
  rows: (body: never) => T[];
  columns: TsvColumn<T>[];
}

/**
 * Tab-separated values with a header row, for shell scripts that have no JSON parser (bin/kg-policy.sh): null is
 * empty, dates are ISO 8601, and tab, newline, carriage return and backslash are escaped as \t \n \r \\.
 */
export function toTsv<T>(columns: TsvColumn<T>[], rows: T[]): string {
  const line = (cells: unknown[]) => cells.map(cell).join('\t');
  return [line(columns.map((c) => c.header)), ...rows.map((row) => line(columns.map((c) => c.value(row))))].join('\n') + '\n';
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
}

const TSV_KEY = 'kurate:tsv';

/** Declares that a JSON route can also answer `Accept: text/tab-separated-values`, and how. */
export const TsvResponse = <T>(shape: TsvShape<T>) => SetMetadata(TSV_KEY, shape);

/** Turns the JSON answer into TSV when the client prefers it (an explicit Accept header; JSON stays the default). */
@Injectable()
export class TsvInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const shape = this.reflector.get<TsvShape<unknown> | undefined>(TSV_KEY, context.getHandler());
    const request = context.switchToHttp().getRequest<Request>();
    if (!shape || request.accepts(['application/json', TSV_MEDIA_TYPE]) !== TSV_MEDIA_TYPE) return next.handle();
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((body: unknown) => {
        response.type(`${TSV_MEDIA_TYPE}; charset=utf-8`);
        return toTsv(shape.columns, shape.rows(body as never));
      }),
    );
  }
}
