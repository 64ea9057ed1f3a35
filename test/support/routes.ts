import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ACCESS_KEY, type AccessLevel } from '../../src/auth/access.decorator.js';

/** A route of the running application, as Express's router has it, with the Nest handler behind it (if any). */
export interface AppRoute {
  method: string;
  path: string;
  /** null: not a Nest route (swagger-ui's pages), public by construction; 'undeclared' when @Access is missing. */
  access: AccessLevel | 'undeclared' | null;
  /** `Controller.method`, or 'express'. */
  handler: string;
  controller: (new (...args: never[]) => object) | null;
  methodName: string | null;
}

type NestHandler = { access: AccessLevel | undefined; controller: new (...args: never[]) => object; methodName: string };

function nestRoutes(app: NestExpressApplication): Map<string, NestHandler> {
  const found = new Map<string, NestHandler>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      const classPaths = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      const proto = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const fn = proto[name];
        if (name === 'constructor' || typeof fn !== 'function') continue;
        const methodPaths = Reflect.getMetadata(PATH_METADATA, fn) as string | string[] | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, fn) as RequestMethod | undefined;
        if (methodPaths === undefined || method === undefined) continue;
        const access = (Reflect.getMetadata(ACCESS_KEY, fn) ?? Reflect.getMetadata(ACCESS_KEY, controller)) as AccessLevel | undefined;
        for (const cp of classPaths) {
          for (const mp of ([] as string[]).concat(methodPaths)) {
            const path = `/${[cp, mp].map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;
            found.set(`${RequestMethod[method]} ${path}`, { access, controller, methodName: name });
          }
        }
      }
    }
  }
  return found;
}

function expressRoutes(app: NestExpressApplication): { method: string; path: string }[] {
  const router = (app.getHttpAdapter().getInstance() as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } }).router;
  return router.stack
    .filter((layer) => layer.route)
    .flatMap((layer) => Object.keys(layer.route!.methods).filter((m) => m !== '_all').map((m) => ({ method: m.toUpperCase(), path: layer.route!.path })));
}

/** Every route Express registers (not a list kept by hand), matched to its Nest handler. */
export function appRoutes(app: NestExpressApplication): AppRoute[] {
  const nest = nestRoutes(app);
  return expressRoutes(app).map(({ method, path }) => {
    const declared = nest.get(`${method} ${path}`);
    return {
      method, path,
      access: declared ? (declared.access ?? 'undeclared') : null,
      handler: declared ? `${declared.controller.name}.${declared.methodName}` : 'express',
      controller: declared?.controller ?? null,
      methodName: declared?.methodName ?? null,
    };
  });
}
