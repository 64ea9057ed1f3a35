import { Injectable, type PipeTransform } from '@nestjs/common';
import { ID_PATTERN, ReviewErrors } from './review-errors.js';

/** A KG id in a path: a positive whole number, else a clear 400 (never a database error). */
@Injectable()
export class ReviewIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value !== 'string' || !ID_PATTERN.test(value)) throw ReviewErrors.invalid(`“${String(value).slice(0, 40)}” is not an id (a positive whole number).`);
    return value;
  }
}
