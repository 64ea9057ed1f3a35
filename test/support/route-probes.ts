import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { getMetadataStorage } from 'class-validator';
import { appRoutes, type AppRoute } from './routes.js';
import { startTestApp, type TestApp, type TestUser } from './test-app.js';

/**
 * What a route takes from a request, read from the running application rather than listed by hand: its path
 * parameters, and the query parameters and body fields its handler declares (Nest's route-argument metadata and the
 * DTOs' class-validator metadata). The input walks (input-rules.test.ts, input-types.test.ts) send bad values to each.
 */

// Nest's RouteParamtypes for @Query() and @Body().
const QUERY = 4;
const BODY = 3;

type Arg = { index: number; data?: string };

/** The DTO properties class-validator knows for a class (the app validates every DTO with it). */
function dtoFields(type: unknown): string[] {
  if (typeof type !== 'function' || [String, Number, Boolean, Object, Array].includes(type as never)) return [];
  return [...new Set(getMetadataStorage().getTargetValidationMetadatas(type as new () => object, '', true, false).map((m) => m.propertyName))];
}

export interface Probe {
  where: 'param' | 'query' | 'body';
  field: string;
}

/**
 * The inputs of a route. `everyField`: the body fields to try on a handler that reads its body itself (a web form),
 * usually every field name any DTO declares.
 */
export function probesOf(route: AppRoute, everyField: string[]): Probe[] {
  const probes: Probe[] = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({ where: 'param', field: m[1] }));
  if (!route.controller || !route.methodName) return probes;
  const args = Object.entries((Reflect.getMetadata(ROUTE_ARGS_METADATA, route.controller, route.methodName) ?? {}) as Record<string, Arg>);
  const types = (Reflect.getMetadata('design:paramtypes', route.controller.prototype, route.methodName) ?? []) as unknown[];
  for (const [key, arg] of args) {
    const kind = Number(key.split(':')[0]);
    if (kind !== QUERY && kind !== BODY) continue;
    const where = kind === QUERY ? 'query' : 'body';
    if (arg.data) probes.push({ where, field: arg.data });
    else {
      const fields = dtoFields(types[arg.index]);
      for (const field of fields.length > 0 || where === 'query' ? fields : everyField) probes.push({ where, field });
    }
  }
  return probes;
}

/** A route's path with its parameters filled in: `bad` in the one named, plausible values in the others. */
export function concreteRoute(path: string, bad: { name: string; value: string } | null): string {
  return path.replace(/:(\w+)/g, (_m, name: string) =>
    name === bad?.name ? encodeURIComponent(bad.value) : name === 'id' ? '00000000-0000-4000-8000-000000000000' : name === 'version' ? '1' : 'nul-walk');
}

export interface InputWalk {
  t: TestApp;
  admin: TestUser;
  /** The routes of Nest's controllers. */
  routes: AppRoute[];
  /** Every body field any route's DTO declares, sorted. */
  everyField: string[];
}

/** A fresh app with one page (`/page/nul-walk`), an admin to send as, and the routes and fields to walk. */
export async function startInputWalk(): Promise<InputWalk> {
  const t = await startTestApp();
  const admin = await t.user('admin');
  const author = await t.as('author');
  await author.post('/api/pages').send({ title: 'Nul Walk', body: 'A page for the walk.' }).expect(201);
  const routes = appRoutes(t.app).filter((r) => r.controller !== null);
  const everyField = [...new Set(routes.flatMap((r) => probesOf(r, []).filter((p) => p.where === 'body').map((p) => p.field)))].sort();
  return { t, admin, routes, everyField };
}
