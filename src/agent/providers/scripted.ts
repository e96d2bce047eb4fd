import type { ProviderRequest, ProviderResponse, TokenUsage, ToolCall } from '../runtime/types';
import {
  abortableDelay,
  type CompleteOptions,
  type Provider,
  ProviderError,
  sanitizeProviderMessage,
} from './provider';

/** One scripted answer (docs/run-lifecycle.md "Providers and tools"). */
export interface ScriptedRound {
  readonly text?: string;
  readonly toolCalls?: readonly { readonly name: string; readonly arguments?: Record<string, unknown> }[];
  /** Wait this long before answering. */
  readonly delayMs?: number;
  /** Stream `text` in this many deltas ... */
  readonly chunks?: number;
  /** ... this far apart. */
  readonly chunkDelayMs?: number;
  /** Test aid: fail this call with this message (a PROVIDER_FAILED run), after streaming `text` if set. */
  readonly error?: string;
  /** The tokens this call reports; absent: estimated from lengths. */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
}

/** `providerOptions` of the scripted provider. */
export interface ScriptedOptions {
  readonly rounds: readonly ScriptedRound[];
}

/** The answer past the last scripted round. */
export const SCRIPT_ENDED = '(script ended)';

/** Sees every request scripted providers of this process are sent (a test aid). */
export type ScriptedRequestListener = (request: ProviderRequest) => void;
let requestListener: ScriptedRequestListener | null = null;

/**
 * Test aid: records what the model would receive. Tests assert the provider's input here,
 * whatever the privacy level keeps of it in the steps. Null stops the recording.
 */
export function recordScriptedRequests(listener: ScriptedRequestListener | null): void {
  requestListener = listener;
}

/**
 * The deterministic provider: the n-th call of a run (`request.callIndex`, counted across
 * continuations) answers round n; past the last round it answers "(script ended)". Tool call
 * ids are `call_<n>_<i>`; usage is the round's `usage`, else derived from lengths (about 4
 * characters a token).
 */
export class ScriptedProvider implements Provider {
  readonly name = 'scripted';

  constructor(private readonly options: ScriptedOptions) {}

  async complete(request: ProviderRequest, options: CompleteOptions = {}): Promise<ProviderResponse> {
    const n = request.callIndex;
    requestListener?.(structuredClone(request));
    const round: ScriptedRound = this.options.rounds[n - 1] ?? { text: SCRIPT_ENDED };
    await abortableDelay(round.delayMs ?? 0, options.signal);
    const text = round.text ?? '';
    await streamText(text, round, options);
    // why: with a text, the call fails after streaming it (a provider that breaks mid-answer).
    if (round.error !== undefined) throw new ProviderError(sanitizeProviderMessage(round.error), false);
    const toolCalls: ToolCall[] = (round.toolCalls ?? []).map((c, i) => ({
      id: `call_${n}_${i + 1}`,
      name: c.name,
      arguments: structuredClone(c.arguments ?? {}),
    }));
    return {
      text,
      toolCalls,
      usage: round.usage ? declaredUsage(round.usage) : scriptedUsage(request, text, toolCalls),
      finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
    };
  }
}

/** Emits `text` in `round.chunks` deltas `round.chunkDelayMs` apart (one delta by default). */
async function streamText(text: string, round: ScriptedRound, options: CompleteOptions): Promise<void> {
  if (text.length === 0 || !options.onDelta) return;
  const parts = splitEvenly(text, round.chunks ?? 1);
  for (const [i, part] of parts.entries()) {
    if (i > 0) await abortableDelay(round.chunkDelayMs ?? 0, options.signal);
    options.onDelta(part);
  }
}

/** Splits `text` into `count` consecutive parts of near-equal length (fewer when it is short). */
export function splitEvenly(text: string, count: number): string[] {
  const n = Math.max(1, Math.min(Math.floor(count), text.length));
  const base = Math.floor(text.length / n);
  const longer = text.length % n;
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const size = base + (i < longer ? 1 : 0);
    parts.push(text.slice(at, at + size));
    at += size;
  }
  return parts;
}

function scriptedUsage(request: ProviderRequest, text: string, calls: readonly ToolCall[]): TokenUsage {
  const sent = request.messages.reduce((sum, m) => sum + m.content.length, 0);
  const promptTokens = Math.ceil(sent / 4);
  const callChars = calls.length > 0 ? JSON.stringify(calls).length : 0;
  const completionTokens = Math.ceil((text.length + callChars) / 4);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

function declaredUsage(usage: NonNullable<ScriptedRound['usage']>): TokenUsage {
  const { inputTokens, outputTokens } = usage;
  return {
    promptTokens: inputTokens,
    completionTokens: outputTokens,
    totalTokens: inputTokens + outputTokens,
  };
}
