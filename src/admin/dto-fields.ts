// The fields the admin screens' DTOs share: lengths, transforms from form and query strings, a list's limit.
import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { storableNumber } from '../common/real-numbers.js';

export const MAX_NAME = 300;
export const MAX_TEXT = 5000;
export const MAX_REASON = 1000;

export const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
export const emptyAsUndefined = ({ value }: { value: unknown }) => (typeof value === 'string' && value.trim() === '' ? undefined : typeof value === 'string' ? value.trim() : value);
export { toBoolean } from '../common/dto-transforms.js';
export const toId = ({ value }: { value: unknown }) => (typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : value);
export const toOptionalId = ({ value }: { value: unknown }) => (value === '' || value === null ? undefined : toId({ value }));
/** A number from a query or form string (or a JSON number), 0 when too close to zero for PostgreSQL (real-numbers.ts). */
export const toNumber = ({ value }: { value: unknown }) => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value === '' ? undefined : value;
  return typeof n === 'number' ? storableNumber(n) : n;
};
/** A list's `limit`: 1–200, 50 when not given. */
export const PageLimit = () =>
  applyDecorators(
    ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 }),
    IsOptional(),
    Transform(toNumber),
    IsInt({ message: 'limit must be a whole number' }),
    Min(1),
    Max(200),
  );
export const ID_MESSAGE = (name: string) => `${name} must be an id (a positive whole number)`;
export const STATUSES = ['pending', 'approved', 'rejected', 'retired'] as const;
export const KINDS = ['node', 'edge'] as const;
