import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { KurateConfig } from '../config/kurate-config.js';
import type { RequestWithActor } from './current-actor.decorator.js';

/** Until accounts exist, every edit is attributed to the configured default author (KURATE_DEFAULT_AUTHOR). */
@Injectable()
export class ActorMiddleware implements NestMiddleware {
  constructor(private readonly config: KurateConfig) {}

  use(request: RequestWithActor, _response: Response, next: NextFunction): void {
    request.actor = { name: this.config.defaultAuthor };
    next();
  }
}
