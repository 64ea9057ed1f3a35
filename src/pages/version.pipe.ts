import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common';

// Versions are PostgreSQL integers.
export const MAX_VERSION = 2_147_483_647;

/** Parses a revision number from the URL: a whole number from 1 up, within PostgreSQL's integer range. */
export function parseVersion(raw: unknown, name = 'version'): number {
  const text = typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : '';
  const version = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(version) || version < 1 || version > MAX_VERSION) {
    throw new BadRequestException(`"${name}" must be a version number (1, 2, 3, …).`);
  }
  return version;
}

@Injectable()
export class VersionPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    return parseVersion(value);
  }
}
