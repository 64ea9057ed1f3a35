import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Actor } from './actor.js';

export interface RequestWithActor extends Request {
  actor?: Actor;
}

/** The acting user of this request, as set by ActorMiddleware. */
export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext): Actor => {
  const request = context.switchToHttp().getRequest<RequestWithActor>();
  if (!request.actor) throw new Error('ActorMiddleware did not run for this route');
  return request.actor;
});
