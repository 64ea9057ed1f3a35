import { ConsoleLogger, type LogLevel } from '@nestjs/common';

/**
 * Nest's own start-up chatter: a line per module initialised and per route mapped (some 200 lines). It is debug
 * information: shown from KURATE_LOG_LEVEL=debug on, never at the default `log`.
 */
export const FRAMEWORK_CONTEXTS: ReadonlySet<string> = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

const ORDER = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
export type AppLogLevel = (typeof ORDER)[number];

/** The levels a logger at `level` prints: `log` prints error, warn and log. */
export function levelsUpTo(level: AppLogLevel): LogLevel[] {
  return ORDER.slice(0, ORDER.indexOf(level) + 1) as LogLevel[];
}

/** Nest's console logger, with the framework's `log` lines demoted to `debug`. */
export class AppLogger extends ConsoleLogger {
  constructor(level: AppLogLevel) {
    super({ logLevels: levelsUpTo(level) });
  }

  override log(message: unknown, ...rest: unknown[]): void {
    const context = rest.at(-1);
    if (typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context)) return super.debug(message, ...rest);
    super.log(message, ...rest);
  }
}
