import { DynamicModule, Global, Inject, Injectable, Logger, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { dataSourceOptions, DatabaseTarget } from './data-source-options';
import { TransactionRunner } from './transaction-runner';

export const DATABASE_TARGET = Symbol('DATABASE_TARGET');

/** Runs pending migrations at start where DB_MIGRATE is on (the embedded default). */
@Injectable()
export class MigrateOnStart implements OnModuleInit {
  private readonly logger = new Logger('Database');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.config.migrate) return;
    const applied = await this.dataSource.runMigrations({ transaction: 'each' });
    if (applied.length > 0) this.logger.log(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
  }
}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(target: DatabaseTarget): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          // why: a transaction idle past a run lease is from a paused or cut-off process; the
          // server rolls it back instead of letting it commit after a takeover (SessionLimits).
          useFactory: (config: AppConfig) =>
            dataSourceOptions(target, 10, { idleInTransactionSeconds: config.runLeaseSeconds }),
        }),
      ],
      providers: [{ provide: DATABASE_TARGET, useValue: target }, TransactionRunner, MigrateOnStart],
      exports: [DATABASE_TARGET, TransactionRunner],
    };
  }
}
