import { Injectable, type PipeTransform } from '@nestjs/common';
import { ID_PATTERN } from '../admin/review-errors.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';

/** An entity id in a path: a positive whole number, else a clear 400 (never a database error). */
@Injectable()
export class EntityIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
      throw new DomainException(DomainErrorCode.InvalidInput, `“${String(value).slice(0, 40)}” is not an entity id: entity ids are positive whole numbers, as in /entities/42.`);
    }
    return value;
  }
}
