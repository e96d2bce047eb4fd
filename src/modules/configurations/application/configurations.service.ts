import { Inject, Injectable } from '@nestjs/common';
import type { JoinedRead } from '../../../platform/database/joined-read';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { RequestContext } from '../../../platform/auth/request-context';
import { parseSerialId } from '../../../common/ids';
import { forbidden, notFound } from '../../../common/refusal';
import { CatalogueEntry, SkillCatalogue, SkillsService } from '../../skills';
import { ConfigurationSettings, ConfigurationView, TaskView } from '../core/configuration';
import { ConfigurationUser, mayUseConfiguration } from '../core/configuration-access.policy';
import { clampMaxIterations } from '../core/max-iterations.policy';
import { chooseTask } from '../core/task-choice.policy';
import {
  ConfigurationRow,
  ConfigurationsRepository,
  TaskRow,
} from '../persistence/configurations.repository';

/** The chat's Task for a user and the skills it offers. */
export interface ChatSetup {
  readonly task: TaskView;
  readonly catalogue: CatalogueEntry[];
}

const userOf = (who: RequestContext | ConfigurationUser): ConfigurationUser =>
  who instanceof RequestContext ? who.viewer : who;

/**
 * Reading configurations and Tasks: what the API lists and what other modules (runs, chat)
 * resolve. Every read is fresh (no cache): an admin's change applies to the next use.
 */
@Injectable()
export class ConfigurationsService {
  constructor(
    private readonly repository: ConfigurationsRepository,
    private readonly skills: SkillsService,
    private readonly catalogue: SkillCatalogue,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'maxIterationsCeiling'>,
  ) {}

  /** The configurations the viewer may use, not deleted, by id (admins: all not deleted). */
  async listForViewer(ctx: RequestContext): Promise<ConfigurationView[]> {
    const user = ctx.viewer;
    const rows = (await this.repository.listActive()).filter((c) => mayUseConfiguration(user, c));
    return this.withSkills(rows);
  }

  /**
   * The configuration with this id when the user may use it (run start, chat). A configuration
   * that is missing, deleted or outside the user's allowed groups answers the same NOT_FOUND,
   * so its existence does not leak. Inactive configurations are returned: the caller refuses
   * them with CONFIGURATION_INACTIVE where that applies. Accepts the request context (house
   * style) or the user directly.
   *
   * @throws Refusal NOT_FOUND as above; BAD_USER_INPUT for a malformed id string.
   */
  async findForUse(who: RequestContext | ConfigurationUser, id: number | string): Promise<ConfigurationView> {
    const user = userOf(who);
    const view = await this.findWithSkills(toId(id, 'configurationId'));
    if (!view || view.deletedAt !== null || !mayUseConfiguration(user, view)) {
      throw notFound('Configuration not found');
    }
    return view;
  }

  /**
   * The settings of the configuration with this id, deleted or not, without an access check
   * and without its skills (one statement): for a run that already points at it (decisions
   * check `deletedAt` for CONFIGURATION_GONE; a run's skills are in its checkpoint).
   *
   * @throws Refusal NOT_FOUND when no configuration has this id.
   */
  async getById(id: number): Promise<ConfigurationSettings> {
    const row = await this.repository.findById(id);
    if (!row) throw notFound('Configuration not found');
    return row;
  }

  /**
   * A configuration's settings read in another module's statement, joined on the id that
   * statement holds (see JoinedRead): what `getById` answers, without a round trip of its own.
   */
  joinedById(): JoinedRead<ConfigurationSettings> {
    return this.repository.joinedById;
  }

  /** `getById` with the configuration's skills (to show it, e.g. `Run.configuration`). */
  async getWithSkillsById(id: number): Promise<ConfigurationView> {
    const view = await this.findWithSkills(id);
    if (!view) throw notFound('Configuration not found');
    return view;
  }

  /**
   * The settings of several configurations by id, deleted or not, without their skills (for
   * lists of runs, a worker's pickup); missing ids are absent. One statement.
   */
  async getByIds(ids: readonly number[]): Promise<Map<number, ConfigurationSettings>> {
    const rows = await this.repository.findByIds([...new Set(ids)]);
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** The iteration limit a run gets: the request, else the configuration's, clamped to the ceiling. */
  effectiveMaxIterations(configuration: ConfigurationSettings, requested?: number | null): number {
    return clampMaxIterations(requested ?? configuration.maxIterations, this.config.maxIterationsCeiling);
  }

  /**
   * The chat's Task for a user (docs/chat-and-skills.md): the mapping of the highest
   * priority (then lowest Task id) among the user's groups, else the Task `default`. Null when
   * neither exists. The Task's configuration comes back as it is (possibly inactive or deleted).
   */
  async taskForUser(who: RequestContext | ConfigurationUser): Promise<TaskView | null> {
    const user = userOf(who);
    const chosen = chooseTask(
      await this.repository.listTasks(),
      user.groups.map((g) => g.id),
    );
    if (!chosen) return null;
    const [view] = await this.toTaskViews([chosen]);
    return view ?? null;
  }

  /** The chat's Task for a user with its skill catalogue; null without a Task. */
  async chatSetupFor(who: RequestContext | ConfigurationUser): Promise<ChatSetup | null> {
    const task = await this.taskForUser(who);
    if (!task) return null;
    return { task, catalogue: await this.catalogue.forConfiguration(task.configuration.id, task.id) };
  }

  /** Every Task, by id. Admins only. @throws Refusal FORBIDDEN for anyone else. */
  async listTasks(ctx: RequestContext): Promise<TaskView[]> {
    if (!ctx.isAdmin) throw forbidden('Only admins may list Tasks');
    return this.toTaskViews(await this.repository.listTasks());
  }

  /** One Task by id (no access check; callers have done theirs). @throws Refusal NOT_FOUND. */
  async getTaskById(id: number): Promise<TaskView> {
    const row = await this.repository.findTaskById(id);
    if (!row) throw notFound('Task not found');
    const [view] = await this.toTaskViews([row]);
    if (!view) throw notFound('Task not found');
    return view;
  }

  /**
   * One configuration with its skills; null when no configuration has the id. why: the skills
   * need only the id, so both statements go at once (on every decision and run start, the
   * round trip of the second is not waited for on its own).
   */
  private async findWithSkills(id: number): Promise<ConfigurationView | null> {
    const [row, skills] = await Promise.all([
      this.repository.findById(id),
      this.skills.attachedToConfigurations([id]),
    ]);
    return row ? { ...row, skills: skills.get(id) ?? [] } : null;
  }

  private async withSkills(rows: readonly ConfigurationRow[]): Promise<ConfigurationView[]> {
    const skills = await this.skills.attachedToConfigurations(rows.map((r) => r.id));
    return rows.map((r) => ({ ...r, skills: skills.get(r.id) ?? [] }));
  }

  private async toTaskViews(rows: readonly TaskRow[]): Promise<TaskView[]> {
    if (rows.length === 0) return [];
    const configurations = new Map(
      (
        await this.withSkills(
          await this.repository.findByIds([...new Set(rows.map((t) => t.configurationId))]),
        )
      ).map((v) => [v.id, v]),
    );
    const skills = await this.skills.attachedToTasks(rows.map((t) => t.id));
    return rows.flatMap((t) => {
      const configuration = configurations.get(t.configurationId);
      // why: the foreign key makes a Task without its configuration impossible; skip rather than crash.
      if (!configuration) return [];
      const { configurationId: _c, ...task } = t;
      return [{ ...task, configuration, skills: skills.get(t.id) ?? [] }];
    });
  }
}

function toId(id: number | string, field: string): number {
  if (typeof id === 'string') return parseSerialId(id, field);
  if (!Number.isInteger(id) || id < 1) throw notFound('Configuration not found');
  return id;
}
