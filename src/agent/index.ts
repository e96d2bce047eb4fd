/**
 * The agent runtime's public surface (framework-free): the loop and resume, the data model,
 * the ports the runs module implements, classification, digest, privacy filter, state
 * cipher, providers and tools.
 */
export * from './runtime/types';
export * from './runtime/errors';
export type {
  AgentPorts,
  Decision,
  DeciderName,
  ForcedSkill,
  ProcessInstructions,
  HistoryMessage,
  PendingEffect,
  RunContext,
  StartInput,
  StepReceipt,
} from './runtime/ports';
export { runAgent } from './runtime/loop';
export { resumeAgent, declineText } from './runtime/resume';
export { validateInput } from './runtime/input';
export { classifyCall, classifyRound, type CallClass, type RoundPlan } from './runtime/classify';
export { turnDigest, digestsEqual, type DigestSubject } from './runtime/digest';
export {
  filterStep,
  filterStepPayload,
  keepAnswer,
  storedAnswer,
  REDACTED_STRING_CAP,
} from './runtime/privacy';
export { capText, maskSecrets } from './runtime/redact';
export {
  encryptState,
  decryptState,
  isSuspendedState,
  openJson,
  parseStateKey,
  sealJson,
} from './runtime/state-cipher';
export { decisionStep } from './runtime/steps';
export type { JsonSchema } from './runtime/json-schema';

export type { CompleteOptions, Provider } from './providers/provider';
export { ProviderError } from './providers/provider';
export {
  createProvider,
  providerConfigProblems,
  ProviderConfigError,
  type ProviderConfig,
} from './providers/factory';
export {
  isProviderName,
  OPENAI_OPTIONS_SCHEMA,
  type OptionsProblem,
  PROVIDER_NAMES,
  providerOptionProblems,
  type ProviderName,
  SCRIPTED_OPTIONS_SCHEMA,
} from './providers/provider-options';
export {
  ScriptedProvider,
  recordScriptedRequests,
  type ScriptedRequestListener,
  SCRIPT_ENDED,
  type ScriptedOptions,
  type ScriptedRound,
} from './providers/scripted';
export { OpenAiProvider, type OpenAiOptions, type SecretResolver } from './providers/openai';
export {
  baseUrlProblem,
  DEFAULT_PROVIDER_KEY_PREFIX,
  keyEnvProblem,
  type ProviderAccess,
} from './providers/provider-access';

export * from './tools/content-port';
export type { InputSpec, ToolContext, ToolDefinition, ToolEffect, ToolResult } from './tools/tool';
export { ToolRegistry, ToolRegistrationError, ToolSet } from './tools/registry';
export { BUILTIN_TOOLS, createDefaultToolRegistry } from './tools/builtins';
export { ASK_USER } from './tools/ask-user';
