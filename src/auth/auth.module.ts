import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ActorMiddleware } from './actor.middleware.js';

@Module({ providers: [ActorMiddleware] })
export class AuthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(ActorMiddleware).forRoutes('*splat');
  }
}
