import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { RequestContext } from '../../../platform/auth/request-context';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { parseSerialId } from '../../../common/ids';
import { badInput, forbidden } from '../../../common/refusal';
import { ConfigurationView, PrivacyLevel, TaskView, type ApprovalTimeoutAction } from '../core/configuration';
import { clampMaxIterations, DEFAULT_MAX_ITERATIONS } from '../core/max-iterations.policy';
import { validateProviderOptions } from '../core/provider-options.policy';
import { UsersService } from '../../auth';
import { SkillsService } from '../../skills';
import { ConfigurationsRepository } from '../persistence/configurations.repository';
import { ConfigurationsService } from './configurations.service';
import { actsAsAdministrator } from '../../../common/administration';

/** What an admin sends to create or replace a configuration (the GraphQL input, unparsed ids). */
export interface ConfigurationUpsert {
  readonly identifier: string;
  readonly name: string;
  readonly provider: string;
  readonly model: string;
  readonly providerOptions?: unknown;
  readonly systemPrompt?: string | null;
  readonly isActive?: boolean | null;
  readonly requireSecondApprover?: boolean | null;
  readonly approvalTimeoutSeconds?: number | null;
  readonly onApprovalTimeout?: ApprovalTimeoutAction | null;
  readonly requiredApprovals?: number | null;
  readonly maxIterations?: number | null;
  readonly privacyLevel?: PrivacyLevel | null;
  readonly allowedGroupIds?: readonly string[] | null;
  readonly skillIdentifiers?: readonly string[] | null;
  readonly maxTokensPerRun?: number | null;
  readonly maxTokensPerUserPerDay?: number | null;
}

export interface TaskUpsert {
  readonly identifier: string;
  readonly name: string;
  readonly configurationIdentifier: string;
  readonly skillIdentifiers?: readonly string[] | null;
  readonly groupIds?: readonly string[] | null;
  readonly priority?: number | null;
}

/**
 * Administration of configurations and Tasks. An upsert is keyed by identifier and takes the
 * input as the COMPLETE description: omitted lists become empty, omitted options `{}`, so the
 * same input always leaves the same row. Every check runs before the first write, and all
 * writes share one transaction: a refused upsert writes nothing.
 */
@Injectable()
export class ConfigurationsAdminService {
  constructor(
    private readonly repository: ConfigurationsRepository,
    private readonly reads: ConfigurationsService,
    private readonly transactions: TransactionRunner,
    private readonly users: UsersService,
    private readonly skills: SkillsService,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'providerAccess' | 'maxIterationsCeiling'>,
  ) {}

  /**
   * Creates or replaces the configuration with this identifier (same id on update; a deleted
   * one comes back). `maxIterations` above the ceiling is stored clamped.
   *
   * @throws Refusal FORBIDDEN for non-admins (the system may); BAD_USER_INPUT for an unknown provider, provider
   *   options over 64 KB or not fitting the provider (with the failing paths), maxIterations
   *   below 1, malformed or unknown group ids, unknown skill identifiers (all named); token caps
   *   below 1 are refused by the input's validation before this runs.
   */
  async upsertConfiguration(ctx: RequestContext, input: ConfigurationUpsert): Promise<ConfigurationView> {
    if (!actsAsAdministrator(ctx.user)) throw forbidden('Only admins may change configurations');
    const providerOptions = validateProviderOptions(
      input.provider,
      input.providerOptions,
      this.config.providerAccess,
    );
    const maxIterations = clampMaxIterations(
      input.maxIterations ?? DEFAULT_MAX_ITERATIONS,
      this.config.maxIterationsCeiling,
    );
    const groupIds = parseIds(input.allowedGroupIds, 'allowedGroupIds');
    const skillIdentifiers = unique(input.skillIdentifiers ?? []);
    const id = await this.transactions.run(async () => {
      await this.assertGroupsExist(groupIds, 'allowedGroupIds');
      const skillIds = await this.resolveSkills(skillIdentifiers);
      const configurationId = await this.repository.upsert({
        identifier: input.identifier,
        name: input.name,
        provider: input.provider,
        model: input.model,
        providerOptions,
        systemPrompt: input.systemPrompt ?? '',
        isActive: input.isActive ?? true,
        requireSecondApprover: input.requireSecondApprover ?? false,
        approvalTimeoutSeconds: input.approvalTimeoutSeconds ?? null,
        onApprovalTimeout: input.onApprovalTimeout ?? 'DENY',
        requiredApprovals: input.requiredApprovals ?? 1,
        maxIterations,
        privacyLevel: input.privacyLevel ?? 'METADATA',
        allowedGroupIds: groupIds,
      });
      await this.repository.setConfigurationSkills(configurationId, skillIds);
      await this.repository.setTokenCaps(configurationId, {
        maxTokensPerRun: input.maxTokensPerRun ?? null,
        maxTokensPerUserPerDay: input.maxTokensPerUserPerDay ?? null,
      });
      return configurationId;
    });
    return this.reads.getWithSkillsById(id);
  }

  /**
   * Creates or replaces the Task with this identifier: its configuration (not deleted), skills
   * and group mappings with their priority.
   *
   * @throws Refusal FORBIDDEN for non-admins; BAD_USER_INPUT for an unknown configuration
   *   identifier, malformed or unknown group ids, unknown skill identifiers (all named).
   */
  async upsertTask(ctx: RequestContext, input: TaskUpsert): Promise<TaskView> {
    if (!actsAsAdministrator(ctx.user)) throw forbidden('Only admins may change Tasks');
    const groupIds = parseIds(input.groupIds, 'groupIds');
    const skillIdentifiers = unique(input.skillIdentifiers ?? []);
    const id = await this.transactions.run(async () => {
      const configuration = await this.repository.findByIdentifier(input.configurationIdentifier);
      if (!configuration || configuration.deletedAt !== null) {
        throw badInput(`Unknown configurationIdentifier: ${input.configurationIdentifier}`, {
          field: 'configurationIdentifier',
          unknown: [input.configurationIdentifier],
        });
      }
      await this.assertGroupsExist(groupIds, 'groupIds');
      const skillIds = await this.resolveSkills(skillIdentifiers);
      const taskId = await this.repository.upsertTask({
        identifier: input.identifier,
        name: input.name,
        configurationId: configuration.id,
        priority: input.priority ?? 0,
      });
      await this.repository.setTaskLinks(taskId, skillIds, groupIds);
      return taskId;
    });
    return this.reads.getTaskById(id);
  }

  private async assertGroupsExist(ids: readonly number[], field: string): Promise<void> {
    const known = await this.users.existingGroupIds(ids);
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw badInput(`Unknown ${field}: ${unknown.join(', ')}`, { field, unknown: unknown.map(String) });
    }
  }

  private async resolveSkills(identifiers: readonly string[]): Promise<number[]> {
    if (identifiers.length === 0) return [];
    const found = new Map(
      (await this.skills.findByIdentifiers(identifiers)).map((s) => [s.identifier, s.id]),
    );
    const unknown = identifiers.filter((i) => !found.has(i));
    if (unknown.length > 0) {
      throw badInput(`Unknown skillIdentifiers: ${unknown.join(', ')}`, {
        field: 'skillIdentifiers',
        unknown,
      });
    }
    return identifiers.map((i) => found.get(i) ?? 0);
  }
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

function parseIds(values: readonly string[] | null | undefined, field: string): number[] {
  return unique((values ?? []).map((v) => parseSerialId(v, field)));
}
