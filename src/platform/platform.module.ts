import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { ThrottlerModule } from '@nestjs/throttler';
import { LoggerModule } from 'nestjs-pino';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { GraphiqlController } from './graphql/graphiql.controller';
import { OperationThrottlerGuard, throttlerOptions } from './graphql/operation-throttler.guard';
import { RefusalFilter } from './graphql/refusal.filter';
import { HealthController } from './http/health.controller';
import { loggerParams } from './logging/logger-params';
import { SharedCounters } from './redis/shared-counters';

/**
 * HTTP-level platform pieces: structured logs (pino), the per-user rate limit, `/health`,
 * the GraphiQL page, and refusals logged as normal traffic (debug), not as faults.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loggerParams(config),
    }),
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, SharedCounters],
      useFactory: (config: AppConfig, counters: SharedCounters) => throttlerOptions(config, counters),
    }),
    TerminusModule.forRoot({ errorLogStyle: 'json' }),
  ],
  controllers: [HealthController, GraphiqlController],
  // why: global guards run in registration order; the AppModule's AccessGuard comes first, so
  // an operation refused by its access rule does not use up the caller's budget.
  providers: [
    { provide: APP_GUARD, useClass: OperationThrottlerGuard },
    { provide: APP_FILTER, useClass: RefusalFilter },
  ],
})
export class PlatformModule {}
