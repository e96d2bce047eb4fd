import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../../config/app-config';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import type { UsersService } from '../../auth';
import { OperatorSkills } from '../../skills';
import { ConfigurationsRepository } from '../persistence/configurations.repository';
import { ConfigurationsAdminService } from './configurations-admin.service';
import { ConfigurationsService } from './configurations.service';

/** What the upserts need of the server's settings. */
export type ConfigurationSettingsLimits = Pick<AppConfig, 'providerAccess' | 'maxIterationsCeiling'>;

/**
 * The configurations module's admin use cases over a data source of their own, outside the Nest
 * container, called as the system: the demo seed writes its configurations and Tasks through
 * the same upserts, checks and defaults as the API's `upsertConfiguration` and `upsertTask`.
 */
export class OperatorConfigurations {
  private constructor(
    readonly admin: ConfigurationsAdminService,
    private readonly repository: ConfigurationsRepository,
  ) {}

  /** `users` checks the group ids an upsert names (the auth module's own service). */
  static over(
    dataSource: DataSource,
    users: UsersService,
    limits: ConfigurationSettingsLimits,
  ): OperatorConfigurations {
    const repository = new ConfigurationsRepository(dataSource);
    const { skills, catalogue } = OperatorSkills.over(dataSource);
    const reads = new ConfigurationsService(repository, skills, catalogue, limits);
    const admin = new ConfigurationsAdminService(
      repository,
      reads,
      new TransactionRunner(dataSource),
      users,
      skills,
      limits,
    );
    return new OperatorConfigurations(admin, repository);
  }

  /** Whether a configuration with this identifier exists, deleted ones included. */
  async hasConfiguration(identifier: string): Promise<boolean> {
    return (await this.repository.findByIdentifier(identifier)) !== null;
  }

  /** Whether a Task with this identifier exists. */
  async hasTask(identifier: string): Promise<boolean> {
    return (await this.repository.findTaskByIdentifier(identifier)) !== null;
  }
}
