import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type {
  ProviderRequest,
  ProviderResponse,
  TokenUsage,
  ToolCall,
  TranscriptMessage,
  ToolSpec,
} from '../runtime/types';
import { type CompleteOptions, type Provider, ProviderError, sanitizeProviderMessage } from './provider';
import { baseUrlProblem, keyEnvProblem, type ProviderAccess } from './provider-access';

/**
 * The SDK, loaded on the first call that needs it: an API instance that never calls a model
 * (or one whose configurations are all scripted) does not carry it (bench M1).
 */
function sdk(): typeof OpenAI {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('openai') as typeof import('openai')).OpenAI;
}

/** `providerOptions` of the OpenAI-compatible provider. */
export interface OpenAiOptions {
  /** The endpoint, e.g. `http://127.0.0.1:11434/v1` (Ollama); default OpenAI's. */
  readonly baseUrl?: string;
  /** Name of the environment variable holding the API key; none: a placeholder key is sent. */
  readonly apiKeyEnv?: string;
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** Longest silence of the provider (before the first byte, between chunks), default 120 s; retries are always off. */
  readonly timeoutMs?: number;
}

/** Reads a secret (an API key) from the environment by variable name. */
export type SecretResolver = (envName: string) => string | undefined;

const DEFAULT_TIMEOUT_MS = 120_000;
const PLACEHOLDER_KEY = 'not-needed';

/**
 * Any OpenAI-compatible chat completions endpoint (OpenAI, Ollama, vLLM, LM Studio, LiteLLM)
 * through the official `openai` package: streamed text and tool calls, usage from the final
 * chunk. The API key is read through the secret resolver when a call is made and is never
 * stored on the run, logged or put into an error message. `access` is checked again at every
 * call (the upsert checked it too): a configuration stored before a setting was tightened, or
 * written straight into the database, still cannot read another variable or reach another URL.
 */
export class OpenAiProvider implements Provider {
  readonly name = 'openai';
  private client: OpenAI | null = null;

  constructor(
    private readonly model: string,
    private readonly options: OpenAiOptions,
    private readonly secret: SecretResolver,
    private readonly access: ProviderAccess,
  ) {}

  async complete(request: ProviderRequest, options: CompleteOptions = {}): Promise<ProviderResponse> {
    const key = this.apiKey();
    const watchdog = new SilenceWatchdog(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const signals = options.signal ? [watchdog.signal, options.signal] : [watchdog.signal];
    try {
      const stream = await this.connect(key).chat.completions.create(this.params(request), {
        signal: AbortSignal.any(signals),
      });
      return await accumulate(stream, request.callIndex, watchdog, options.onDelta);
    } catch (error) {
      if (watchdog.fired) throw new ProviderError('The provider did not answer in time', true);
      throw toProviderError(error, [key]);
    } finally {
      watchdog.dispose();
    }
  }

  private apiKey(): string {
    const url = this.baseUrl();
    const refusedUrl = baseUrlProblem(url, this.access);
    if (refusedUrl) throw new ProviderError(`The provider URL ${url} ${refusedUrl}`, false);
    const env = this.options.apiKeyEnv;
    if (!env) return PLACEHOLDER_KEY;
    const refusedEnv = keyEnvProblem(env, this.access);
    if (refusedEnv) throw new ProviderError(`The API key variable ${env} ${refusedEnv}`, false);
    const key = this.secret(env);
    if (!key) throw new ProviderError(`The API key variable ${env} is not set`, false);
    return key;
  }

  private connect(apiKey: string): OpenAI {
    // why: organization/project/webhookSecret given explicitly so the SDK reads nothing from
    // the environment itself; logging off so no request detail is ever printed.
    this.client ??= new (sdk())({
      apiKey,
      baseURL: this.baseUrl(),
      organization: null,
      project: null,
      webhookSecret: null,
      maxRetries: 0,
      // why: the silence watchdog (below) is the real timeout; the SDK's is a late backstop.
      timeout: (this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS) + 5_000,
      logLevel: 'off',
    });
    return this.client;
  }

  private baseUrl(): string {
    return this.options.baseUrl ?? 'https://api.openai.com/v1';
  }

  private params(request: ProviderRequest): ChatCompletionCreateParamsStreaming {
    return {
      model: this.model,
      messages: request.messages.map(toWireMessage),
      ...(request.tools.length > 0 ? { tools: request.tools.map(toWireTool) } : {}),
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
      ...(this.options.maxTokens !== undefined ? { max_tokens: this.options.maxTokens } : {}),
      stream: true,
      stream_options: { include_usage: true },
    };
  }
}

function toWireMessage(message: TranscriptMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.callId, content: message.content };
    case 'assistant':
      if (!message.toolCalls || message.toolCalls.length === 0) {
        return { role: 'assistant', content: message.content };
      }
      return {
        role: 'assistant',
        content: message.content.length > 0 ? message.content : null,
        tool_calls: message.toolCalls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: JSON.stringify(c.arguments) },
        })),
      };
  }
}

function toWireTool(tool: ToolSpec): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

/**
 * Aborts a call when the provider stays silent for `ms` (before the first byte or between two
 * chunks), so a slow but streaming answer is not cut off while a stalled one is.
 */
class SilenceWatchdog {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout;
  fired = false;

  constructor(private readonly ms: number) {
    this.timer = this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  kick(): void {
    clearTimeout(this.timer);
    this.timer = this.arm();
  }

  dispose(): void {
    clearTimeout(this.timer);
  }

  private arm(): NodeJS.Timeout {
    return setTimeout(() => {
      this.fired = true;
      this.controller.abort();
    }, this.ms);
  }
}

interface CallDraft {
  id: string;
  name: string;
  args: string;
}

/** Folds a chat-completions stream into one response, forwarding text deltas. */
async function accumulate(
  stream: AsyncIterable<ChatCompletionChunk>,
  callIndex: number,
  watchdog: SilenceWatchdog,
  onDelta?: (delta: string) => void,
): Promise<ProviderResponse> {
  let text = '';
  let finishReason = 'stop';
  let usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  const drafts: CallDraft[] = [];
  for await (const chunk of stream) {
    watchdog.kick();
    if (chunk.usage) usage = fromWireUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta?.content;
    if (delta) {
      text += delta;
      onDelta?.(delta);
    }
    for (const part of choice.delta?.tool_calls ?? []) mergeToolCallDelta(drafts, part);
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  return { text, toolCalls: finishCalls(drafts, callIndex), usage, finishReason };
}

function mergeToolCallDelta(drafts: CallDraft[], part: ChatCompletionChunk.Choice.Delta.ToolCall): void {
  const index = typeof part.index === 'number' ? part.index : drafts.length;
  const draft = (drafts[index] ??= { id: '', name: '', args: '' });
  if (part.id) draft.id = part.id;
  const name = part.function?.name;
  // why: most servers send the name once, some repeat it whole in every chunk.
  if (name && name !== draft.name) draft.name += name;
  if (part.function?.arguments) draft.args += part.function.arguments;
}

function finishCalls(drafts: readonly (CallDraft | undefined)[], callIndex: number): ToolCall[] {
  const seen = new Set<string>();
  const calls: ToolCall[] = [];
  for (const [i, draft] of drafts.entries()) {
    if (!draft || draft.name.length === 0) continue;
    const id = draft.id && !seen.has(draft.id) ? draft.id : `call_${callIndex}_${i + 1}`;
    seen.add(id);
    calls.push({ id, name: draft.name, arguments: parseArguments(draft.args) });
  }
  return calls;
}

/** The model's argument JSON as an object; anything else is kept under `_invalidArguments`. */
export function parseArguments(raw: string): Record<string, unknown> {
  if (raw.trim().length === 0) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // fall through
  }
  return { _invalidArguments: raw };
}

function fromWireUsage(u: NonNullable<ChatCompletionChunk['usage']>): TokenUsage {
  const promptTokens = u.prompt_tokens ?? 0;
  const completionTokens = u.completion_tokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: u.total_tokens ?? promptTokens + completionTokens };
}

/** Maps an SDK or network error to a `ProviderError` with a sanitised message. */
export function toProviderError(error: unknown, secrets: readonly string[]): ProviderError {
  if (error instanceof ProviderError) return error;
  const clean = (m: string) => sanitizeProviderMessage(m, secrets);
  const Sdk = sdk();
  if (error instanceof Sdk.APIUserAbortError) return new ProviderError('The provider call was aborted');
  if (error instanceof Sdk.APIConnectionTimeoutError) {
    return new ProviderError('The provider did not answer in time', true);
  }
  if (error instanceof Sdk.APIConnectionError) {
    return new ProviderError(clean(`The provider could not be reached: ${error.message}`), true);
  }
  if (error instanceof Sdk.APIError && typeof error.status === 'number') {
    const retryable = error.status >= 500 || error.status === 429;
    const detail = error.message.replace(/^\d{3}\s*/, '');
    return new ProviderError(
      clean(`Provider error (HTTP ${error.status}): ${detail}`),
      retryable,
      error.status,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(clean(`Provider error: ${message}`), false);
}
