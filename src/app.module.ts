import { ApolloDriver, ApolloDriverConfig } from '@nestjs/apollo';
import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { GraphQLModule } from '@nestjs/graphql';
import { AppConfig } from './config/app-config';
import { APP_CONFIG, AppConfigModule } from './config/config.module';
import { AuthModule } from './modules/auth/auth.module';
import { ConfigurationsModule } from './modules/configurations/configurations.module';
import { ContentModule } from './modules/content/content.module';
import { RunsModule } from './modules/runs/runs.module';
import { ApprovalsModule } from './modules/approvals/approvals.module';
import { SkillsModule } from './modules/skills/skills.module';
import { WorkerModule } from './modules/worker/worker.module';
import { ConversationsModule } from './modules/conversations/conversations.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { AccessGuard } from './platform/auth/access.guard';
import { AuthFailureLimiter } from './platform/auth/auth-failures';
import { AuthLimitsModule } from './platform/auth/auth-limits.module';
import { Authenticator } from './platform/auth/authenticator';
import { DatabaseModule } from './platform/database/database.module';
import { DatabaseTarget } from './platform/database/data-source-options';
import { graphqlOptions } from './platform/graphql/graphql.setup';
import { OperationPrefetch, OperationPrefetchModule } from './platform/graphql/operation-prefetch';
import { GraphqlWsServer } from './platform/graphql/ws-server';
import { Metrics } from './platform/metrics/metrics';
import { MetricsModule } from './platform/metrics/metrics.module';
import { PlatformModule } from './platform/platform.module';
import { PubSubModule } from './platform/pubsub/pubsub.module';
import { SharedCountersModule } from './platform/redis/shared-counters';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseTarget): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config),
        DatabaseModule.forRoot(database),
        SharedCountersModule,
        AuthLimitsModule,
        MetricsModule.forRoot(config),
        OperationPrefetchModule,
        GraphQLModule.forRootAsync<ApolloDriverConfig>({
          driver: ApolloDriver,
          imports: [AuthModule],
          inject: [APP_CONFIG, Authenticator, AuthFailureLimiter, Metrics, OperationPrefetch],
          useFactory: graphqlOptions,
        }),
        PlatformModule,
        PubSubModule,
        AuthModule,
        ContentModule,
        SkillsModule,
        ConfigurationsModule,
        RunsModule,
        ApprovalsModule,
        ConversationsModule,
        WebhooksModule,
        WorkerModule,
      ],
      providers: [{ provide: APP_GUARD, useClass: AccessGuard }, GraphqlWsServer],
    };
  }
}
