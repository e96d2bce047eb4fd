export { ConfigurationsModule } from './configurations.module';
export { ConfigurationsService } from './application/configurations.service';
export type { ChatSetup } from './application/configurations.service';
export { OperatorConfigurations } from './application/operator-configurations';
export type { ConfigurationSettingsLimits } from './application/operator-configurations';
export { DEFAULT_TASK_IDENTIFIER, isPrivacyLevel, PRIVACY_LEVELS } from './core/configuration';
export type { ConfigurationSettings, ConfigurationView, PrivacyLevel, TaskView } from './core/configuration';
export type { TokenCaps } from './core/configuration';
export { mayUseConfiguration } from './core/configuration-access.policy';
export type { ConfigurationUser } from './core/configuration-access.policy';
export {
  clampMaxIterations,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_ITERATIONS_CEILING,
} from './core/max-iterations.policy';
export {
  assertJsonSize,
  jsonByteLength,
  MAX_JSON_INPUT_BYTES,
  validateProviderOptions,
} from './core/provider-options.policy';
export { chooseTask } from './core/task-choice.policy';
export type { TaskMapping } from './core/task-choice.policy';
export {
  ConfigurationModel,
  PrivacyLevelEnum,
  TaskModel,
  toConfigurationModel,
  toTaskModel,
  toWithheldConfigurationModel,
  WITHHELD_TEXT,
} from './graphql/configuration.model';
