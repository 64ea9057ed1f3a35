import { SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import type { Observable } from 'rxjs';
import { DomainErrorCode, DomainException } from './domain.exception.js';
import { storableNumber } from './real-numbers.js';
import { storable, unstorableText } from './storable-text.js';

/**
 * The rules every text a request carries must meet before any route sees it (docs/data-integrity.md):
 * - PostgreSQL text cannot hold NUL (U+0000). A NUL anywhere (a body field or a key, a query parameter, the address)
 *   is refused with a 400 that names the field, except in a page's Markdown source (a field named `body`), which is
 *   stored as written: there each NUL becomes U+FFFD, the replacement CommonMark itself prescribes for U+0000, so the
 *   page reads exactly as it would have (text pasted from a binary-ish source saves, and the spot stays visible).
 * - A lone UTF-16 surrogate (`\ud800` written alone in JSON) is not text: PostgreSQL refuses it in JSON columns, and
 *   would store it as U+FFFD in text. It gets the same rule as NUL: a 400 naming the field, and in a `body` field each
 *   one becomes U+FFFD.
 * - A number in a JSON body closer to zero than PostgreSQL's `real` can hold (below 1.2e-38: a confidence of 1e-46)
 *   is read as 0, which is what it means; PostgreSQL would refuse it rather than round it (real-numbers.ts).
 * - A JSON body nested deeper than MAX_INPUT_DEPTH is refused with a 400 before anything walks it recursively.
 *   (Form bodies are parsed flat (`extended: false`) and query strings with Express's flat parser: they cannot nest.)
 */
export const MAX_INPUT_DEPTH = 64;

/** The field name whose text is a page's Markdown source, kept verbatim: NUL and lone surrogates there are replaced, not refused. */
const VERBATIM_FIELD = 'body';

export interface InputProblem {
  /** Where: `title`, `pages[3].frontmatter.tags[0]`, `?q`, or `the address`. */
  field: string;
  message: string;
}

const childPath = (parent: string, key: string | number) =>
  typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? key : `${parent}.${key}`;

/**
 * Checks a parsed body or query without recursion (a hostile body may be nested 100,000 deep). In a body, NUL in a
 * `body` field is replaced in place. Returns the first problem, or null.
 */
export function checkInput(root: unknown, where: 'body' | 'query'): InputProblem | null {
  const prefix = where === 'query' ? '?' : '';
  const stack: { value: unknown; path: string; depth: number; key: string | number | null }[] = [{ value: root, path: '', depth: 0, key: null }];
  while (stack.length > 0) {
    const { value, path, depth, key } = stack.pop()!;
    if (typeof value === 'string') {
      if (where === 'body' && key === VERBATIM_FIELD) continue; // made storable by its parent (below)
      const problem = unstorableText(value, `${prefix}${path}`);
      if (problem) return { field: `${prefix}${path}`, message: problem };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      return { field: `${prefix}${path}`, message: `The request body is nested more than ${MAX_INPUT_DEPTH} levels deep (at "${path}"); Kurate accepts at most ${MAX_INPUT_DEPTH}.` };
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        if (typeof value[i] === 'number') value[i] = storableNumber(value[i] as number);
        stack.push({ value: value[i], path: childPath(path, i), depth: depth + 1, key: i });
      }
      continue;
    }
    const record = value as Record<string, unknown>;
    for (const name of Object.keys(record)) {
      const keyProblem = unstorableText(name, `${prefix}${childPath(path, name)}`);
      if (keyProblem) return { field: `${prefix}${childPath(path, name)}`, message: keyProblem };
      const child = record[name];
      if (where === 'body' && name === VERBATIM_FIELD && typeof child === 'string' && unstorableText(child, name)) record[name] = storable(child);
      if (typeof child === 'number') record[name] = storableNumber(child);
      stack.push({ value: record[name], path: childPath(path, name), depth: depth + 1, key: name });
    }
  }
  return null;
}

/** A NUL in the address: `%00` decodes to U+0000 in a route parameter. */
export function checkAddress(path: string): InputProblem | null {
  return /%00/i.test(path) ? { field: 'the address', message: 'The address contains a NUL character (%00), which Kurate cannot store or look up.' } : null;
}

const REJECTION = Symbol('kurate.inputRejection');
const rejections = new WeakMap<object, InputProblem>();

function rejection(problem: InputProblem): DomainException {
  return new DomainException(DomainErrorCode.InvalidInput, problem.message, { field: problem.field });
}

const isFormPost = (request: Request) => request.is('application/x-www-form-urlencoded') === 'application/x-www-form-urlencoded';

/**
 * The middleware that applies the rules to every request, after the body parsers and before everything else.
 * A problem is answered with a 400 at once, except in a form post: a form's handler may show its form again with
 * the message and everything the user typed (see @ShowsInputProblemsInForm); the interceptor below refuses the
 * form post for every other handler.
 */
export function inputRules(request: Request, _response: Response, next: NextFunction): void {
  const address = checkAddress(request.path);
  if (address) return next(rejection(address));
  const problem = checkInput(request.query, 'query') ?? checkInput(request.body, 'body');
  if (!problem) return next();
  if (isFormPost(request) && request.body && typeof request.body === 'object') {
    (request as Request & { [REJECTION]?: InputProblem })[REJECTION] = problem;
    rejections.set(request.body as object, problem);
    return next();
  }
  next(rejection(problem));
}

/** The problem the input rules found in a submitted form body (for readForm), if any. */
export function inputProblemOf(body: unknown): InputProblem | null {
  return body && typeof body === 'object' ? (rejections.get(body) ?? null) : null;
}

const SHOWS_INPUT_PROBLEMS = 'kurate:showsInputProblemsInForm';

/**
 * On a form handler that validates its body with readForm and shows the form again on a problem: a form post
 * refused by the input rules reaches it (readForm reports the problem), so the user keeps what they typed.
 */
export const ShowsInputProblemsInForm = () => SetMetadata(SHOWS_INPUT_PROBLEMS, true);

/** Refuses, before the handler, a form post the input rules found a problem in, unless the handler shows it itself. */
export class InputRulesInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request & { [REJECTION]?: InputProblem }>();
    const problem = request?.[REJECTION];
    if (problem && !this.reflector.get<boolean>(SHOWS_INPUT_PROBLEMS, context.getHandler())) throw rejection(problem);
    return next.handle();
  }
}
