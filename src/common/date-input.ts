import { ValidateBy } from 'class-validator';

/**
 * The dates and times Kurate reads from people and programs: a calendar date (`2026-01-31`, years 1000–9999) or an
 * ISO 8601 time in its extended form (`2026-01-31T18:00`, seconds and fractions optional, `Z` or an offset within ±14:00 optional).
 * ISO 8601 allows more (week dates `2026-W05-6`, ordinal dates `2026-031`, the basic form `20260131`, a lone year),
 * which PostgreSQL and JavaScript do not read alike: a filter given one once reached the database as an invalid date,
 * a 500.
 */
export const DATE_OR_TIME = /^[1-9]\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-](0\d|1[0-4]):[0-5]\d)?)?$/;

/**
 * The moment a DATE_OR_TIME text names (a date: its start, in UTC; a time without an offset: in UTC), or null for a
 * text of another form or a day that does not exist (2026-02-30).
 */
export function readDateOrTime(text: string): Date | null {
  if (!DATE_OR_TIME.test(text)) return null;
  const [year, month, day] = text.slice(0, 10).split('-').map(Number);
  const midnight = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC rolls 2026-02-30 over into March: such a day does not exist.
  if (midnight.getUTCFullYear() !== year || midnight.getUTCMonth() !== month - 1 || midnight.getUTCDate() !== day) return null;
  if (text.length === 10) return midnight;
  return new Date(/(Z|[+-]\d\d:\d\d)$/.test(text) ? text : `${text}Z`);
}

/** A DTO field holding a date or time readDateOrTime reads (the message names the field and shows the forms). */
export function IsDateOrTime(field: string, example: string): PropertyDecorator {
  return ValidateBy({
    name: 'isDateOrTime',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && readDateOrTime(value) !== null,
      defaultMessage: () => `${field} must be a date such as ${example} or a time such as ${example}T18:00:00Z (UTC unless it names an offset)`,
    },
  });
}
