import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { ReviewErrors } from '../admin/review-errors.js';
import { nextTurn } from '../common/next-turn.js';

/**
 * Items checked per turn of the event loop. A graph file may hold 50,000 nodes and 200,000 edges (2 MB of JSON holds
 * ~40,000 items): checked in one go, as the request's validation pipe did, 3,000 nodes and 36,000 edges held the web
 * thread for 0.8 s of transforming and validating, and every other request (/health too) waited. A batch takes a few
 * milliseconds.
 */
const BATCH = 500;

function reasons(errors: ValidationError[]): string[] {
  return errors.flatMap((e) => [...Object.values(e.constraints ?? {}), ...reasons(e.children ?? [])]);
}

/**
 * The graph's nodes or edges as `dto` instances, each validated as the request's other fields are (unknown fields
 * refused, except those the DTO allows), in batches with a turn of the event loop between them. The first invalid
 * item is a 400 that names it (`graph.edges[12]: …`).
 */
export async function checkedGraphItems<T extends object>(dto: ClassConstructor<T>, items: readonly unknown[], where: 'nodes' | 'edges'): Promise<T[]> {
  const checked: T[] = [];
  for (let start = 0; start < items.length; start += BATCH) {
    if (start > 0) await nextTurn();
    const end = Math.min(items.length, start + BATCH);
    for (let i = start; i < end; i++) {
      const raw = items[i];
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw ReviewErrors.invalid(`graph.${where}[${i}] must be an object`);
      const item = plainToInstance(dto, raw);
      const errors = validateSync(item, { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
      if (errors.length > 0) throw ReviewErrors.invalid(`graph.${where}[${i}]: ${reasons(errors).join('; ')}`);
      checked.push(item);
    }
  }
  return checked;
}
