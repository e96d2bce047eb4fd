import type { LoggerService, LogLevel } from '@nestjs/common';

/** Nest's own levels at each LOG_LEVEL, for the lines it logs before pino takes over. */
const NEST_LEVELS: Readonly<Record<string, LogLevel[]>> = {
  silent: [],
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

/** The Nest log levels for a LOG_LEVEL (info's where the name is unknown). */
export function nestLogLevels(logLevel: string): LogLevel[] {
  return NEST_LEVELS[logLevel] ?? NEST_LEVELS.info!;
}

/**
 * Nest's start-up chatter: one line per module, route and mapping. At `debug` they stay
 * available; at `info` the start-up banner is not buried under them.
 */
const STARTUP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
  'GraphQLModule',
]);

/** The application's logger, with Nest's start-up `log` lines demoted to `debug`. */
export class StartupQuietLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && STARTUP_CONTEXTS.has(context) && this.inner.debug) {
      this.inner.debug(message, ...rest);
      return;
    }
    this.inner.log(message, ...rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.inner.error(message, ...rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.inner.warn(message, ...rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.inner.debug?.(message, ...rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.inner.verbose?.(message, ...rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.inner.fatal?.(message, ...rest);
  }
}
