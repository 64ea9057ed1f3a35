import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Observable } from 'rxjs';

/**
 * Adds `Server-Timing: app;dur=<ms>` (time from the handler's start to the response head) to the review routes, so
 * the benchmark (bench/review.mjs) and an admin's browser tools see the server's own time, without the network.
 */
@Injectable()
export class ServerTimingInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<ServerResponse>();
    const started = process.hrtime.bigint();
    const writeHead = res.writeHead;
    res.writeHead = function timedWriteHead(this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
      if (!this.headersSent && !this.hasHeader('server-timing')) {
        this.setHeader('Server-Timing', `app;dur=${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)}`);
      }
      return writeHead.apply(this, args);
    } as ServerResponse['writeHead'];
    return next.handle();
  }
}
