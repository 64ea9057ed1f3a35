import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ANONYMOUS } from './actor.js';
import type { RequestWithActor } from './current-actor.decorator.js';
import type { RequestOrigin } from './users.service.js';

/** Who is acting and from which address (the client's, behind a trusted proxy): what an audit entry needs. */
export const Origin = createParamDecorator((_data: unknown, context: ExecutionContext): RequestOrigin => {
  const request = context.switchToHttp().getRequest<RequestWithActor>();
  return { actor: request.actor ?? ANONYMOUS, ip: request.ip ?? null };
});
