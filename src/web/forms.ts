import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync } from 'class-validator';
import { inputProblemOf } from '../common/input-rules.js';

export { fieldText } from '../common/form-fields.js';

export type FormResult<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Validates a submitted form against an API DTO (the same rules as the JSON API), without throwing: a bad form is
 * shown again with the user's text, never replaced by an error page.
 */
export function readForm<T extends object>(dto: ClassConstructor<T>, body: unknown): FormResult<T> {
  // A NUL the input rules found (they let the form's own handler show it: @ShowsInputProblemsInForm).
  const problem = inputProblemOf(body);
  if (problem) return { ok: false, message: `The form could not be saved: ${problem.message}` };
  const plain = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const value = plainToInstance(dto, plain);
  const errors = validateSync(value, { whitelist: true, forbidNonWhitelisted: false });
  if (errors.length === 0) return { ok: true, value };
  const message = errors.flatMap((e) => Object.values(e.constraints ?? {})).join('; ');
  return { ok: false, message: `The form could not be saved: ${message}.` };
}
