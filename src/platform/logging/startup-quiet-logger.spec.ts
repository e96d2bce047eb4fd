import type { LoggerService } from '@nestjs/common';
import { nestLogLevels, StartupQuietLogger } from './startup-quiet-logger';

describe('StartupQuietLogger', () => {
  function recorder() {
    const calls: Array<[string, unknown[]]> = [];
    const record =
      (level: string) =>
      (...args: unknown[]) =>
        void calls.push([level, args]);
    const inner: LoggerService = {
      log: record('log'),
      error: record('error'),
      warn: record('warn'),
      debug: record('debug'),
      verbose: record('verbose'),
      fatal: record('fatal'),
    };
    return { calls, logger: new StartupQuietLogger(inner) };
  }

  it("demotes Nest's start-up lines to debug", () => {
    const { calls, logger } = recorder();
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Mapped {/graphql, POST} route', 'GraphQLModule');
    logger.log('Nest application successfully started', 'NestApplication');
    expect(calls.map(([level]) => level)).toEqual(['debug', 'debug', 'debug']);
  });

  it('keeps every other line at its level', () => {
    const { calls, logger } = recorder();
    logger.log('applied migrations: X', 'Database');
    logger.warn('lease lost', 'RunExecutor');
    logger.error('boom', 'InstanceLoader');
    expect(calls).toEqual([
      ['log', ['applied migrations: X', 'Database']],
      ['warn', ['lease lost', 'RunExecutor']],
      ['error', ['boom', 'InstanceLoader']],
    ]);
  });
});

describe('nestLogLevels', () => {
  it("gives Nest the levels at and above LOG_LEVEL, info's for an unknown name", () => {
    expect(nestLogLevels('warn')).toEqual(['fatal', 'error', 'warn']);
    expect(nestLogLevels('silent')).toEqual([]);
    expect(nestLogLevels('trace')).toContain('verbose');
    expect(nestLogLevels('loud')).toEqual(['fatal', 'error', 'warn', 'log']);
  });
});
