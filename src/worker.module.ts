import { DynamicModule, INestApplicationContext, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { LoggerModule, Logger as PinoLogger } from 'nestjs-pino';
import type { AppConfig } from './config/app-config';
import { APP_CONFIG, AppConfigModule } from './config/config.module';
import { ApprovalsModule } from './modules/approvals/approvals.module';
import { AuthModule } from './modules/auth/auth.module';
import { ConfigurationsModule } from './modules/configurations/configurations.module';
import { ContentModule } from './modules/content/content.module';
import { RunsModule } from './modules/runs/runs.module';
import { OperationPrefetchModule } from './platform/graphql/operation-prefetch';
import { SharedCountersModule } from './platform/redis/shared-counters';
import { SkillsModule } from './modules/skills/skills.module';
import { WorkerModule } from './modules/worker/worker.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { ConversationsModule } from './modules/conversations/conversations.module';
import { DatabaseModule } from './platform/database/database.module';
import type { DatabaseTarget } from './platform/database/data-source-options';
import { loggerParams } from './platform/logging/logger-params';
import { nestLogLevels, StartupQuietLogger } from './platform/logging/startup-quiet-logger';
import { MetricsModule } from './platform/metrics/metrics.module';
import { PubSubModule } from './platform/pubsub/pubsub.module';

/**
 * The composition root of a worker process (`npm run start:worker`): the modules a worker
 * needs to claim and execute runs and recorded decisions, and no HTTP or GraphQL server.
 */
@Module({})
export class WorkerAppModule {
  static forRoot(config: AppConfig, database: DatabaseTarget): DynamicModule {
    return {
      module: WorkerAppModule,
      imports: [
        AppConfigModule.forRoot(config),
        DatabaseModule.forRoot(database),
        LoggerModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (c: AppConfig) => loggerParams(c),
        }),
        PubSubModule,
        // why: a worker process serves no HTTP, so nothing could scrape it.
        MetricsModule.off(),
        // why: the runs module's start caps count in it (a worker process starts no runs itself).
        SharedCountersModule,
        // why: the approvals module's resolvers register their prefetches (never run here).
        OperationPrefetchModule,
        AuthModule,
        ContentModule,
        SkillsModule,
        ConfigurationsModule,
        RunsModule,
        ApprovalsModule,
        ConversationsModule,
        WebhooksModule,
        WorkerModule.forWorkerProcess(),
      ],
    };
  }
}

/**
 * Creates and starts the worker's application context: the heartbeat is written and the
 * pickup runs when this resolves (WORKER_ENABLED is forced on: a worker process is a worker).
 */
export async function createWorkerContext(
  config: AppConfig,
  database: DatabaseTarget,
): Promise<INestApplicationContext> {
  const worker = { ...config, workerEnabled: true };
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(worker, database), {
    // why: as in the server, Nest's own lines wait for pino to take over.
    bufferLogs: true,
    logger: nestLogLevels(config.logLevel),
  });
  app.useLogger(new StartupQuietLogger(app.get(PinoLogger)));
  Logger.flush();
  return app;
}
