import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { isSafeSlug } from './markdown/slug.js';

/** Rejects anything that is not a canonical slug (path traversal, stray characters) before it reaches a query. */
@Injectable()
export class SlugPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value !== 'string' || !isSafeSlug(value)) {
      throw new BadRequestException(`"${String(value).slice(0, 80)}" is not a page slug (lower-case letters, digits and dashes).`);
    }
    return value;
  }
}
