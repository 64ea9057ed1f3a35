import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ANONYMOUS, type Actor } from './actor.js';

export interface RequestWithActor extends Request {
  actor?: Actor;
}

/** The acting user of this request, as set by the identity middleware (anonymous when nobody logged in). */
export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext): Actor => {
  return context.switchToHttp().getRequest<RequestWithActor>().actor ?? ANONYMOUS;
});
