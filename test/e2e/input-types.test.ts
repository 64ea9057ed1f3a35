import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concreteRoute, probesOf, startInputWalk, type InputWalk } from '../support/route-probes.js';
import { someIp } from '../support/test-app.js';

/**
 * THE TYPE WALK. The NUL walk (input-rules.test.ts) sends bad text; this one sends a value of the wrong kind to every
 * input of every route the application registers: a list, an object, a number past any column's range, a boolean and
 * null in each JSON body field; a repeated query parameter (Express reads it as a list) and an empty or absurd one;
 * an overlong or climbing path parameter. Nothing may answer 5xx.
 */

const BODY_VALUES: [string, unknown][] = [
  ['a list', ['a', 'b']],
  ['an object', { nested: 'x' }],
  ['a number past bigint', 1e30],
  ['a negative number', -1],
  ['a fraction', 0.5],
  ['a boolean', true],
  ['null', null],
  ['an empty string', ''],
];
const QUERY_VALUES: [string, string | string[]][] = [
  ['a repeated parameter', ['a', 'b']],
  ['an empty value', ''],
  ['a number past bigint', '1e30'],
  ['a negative number', '-1'],
  ['not a number', 'NaN'],
];
const PARAM_VALUES: [string, string][] = [
  ['an overlong value', 'x'.repeat(5000)],
  ['a climbing value', '../..'],
  ['a number past bigint', '99999999999999999999999'],
  ['a negative number', '-1'],
];

describe('bad input never gets a 500: a value of the wrong kind in any input', () => {
  let walk: InputWalk | undefined;
  beforeAll(async () => {
    walk = await startInputWalk();
  });
  afterAll(() => walk?.t.close());

  it('answers every wrong kind of value in every input with a 2xx, 3xx or 4xx, never a 5xx', async () => {
    const { t, admin, routes, everyField } = walk!;
    const failures: string[] = [];
    const http = supertest(t.app.getHttpServer());
    let probed = 0;
    const statuses = new Map<number, number>();
    for (const route of routes) {
      const method = route.method.toLowerCase() as 'get';
      const form = !route.path.startsWith('/api') && route.method === 'POST';
      const emptyBody = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
      const send = (path: string) => http[method](path).set('Authorization', `Bearer ${admin.token}`).set('Accept', 'application/json').set('X-Forwarded-For', someIp());
      for (const probe of probesOf(route, everyField)) {
        const tries: [string, () => Promise<supertest.Response>][] =
          probe.where === 'param'
            ? PARAM_VALUES.map(([what, value]) => [what, async () => send(concreteRoute(route.path, { name: probe.field, value })).send(emptyBody)])
            : probe.where === 'query'
              ? QUERY_VALUES.map(([what, value]) => [what, async () => send(concreteRoute(route.path, null)).query({ [probe.field]: value }).send(emptyBody)])
              : form
                ? [] // a form's fields are text: the NUL walk covers them
                : BODY_VALUES.map(([what, value]) => [what, async () => send(concreteRoute(route.path, null)).send({ [probe.field]: value })]);
        for (const [what, request] of tries) {
          const res = await request();
          probed++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status >= 500) failures.push(`${route.method} ${route.path} (${route.handler}) ${probe.where} ${probe.field} as ${what}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    }
    expect(probed).toBeGreaterThan(500);
    // The walk reaches the handlers' validation: most wrong values are refused there, none by a guard.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(probed / 2);
    expect(statuses.get(401) ?? 0).toBe(0);
    expect(statuses.get(403) ?? 0).toBe(0);
    expect(failures).toEqual([]);
  }, 600_000);
});
