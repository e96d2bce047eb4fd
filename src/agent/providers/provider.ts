import { capText, maskSecrets } from '../runtime/redact';
import type { ProviderRequest, ProviderResponse } from '../runtime/types';

/** Per-call options: a text-delta callback (keep-alive, live display) and a cancel signal. */
export interface CompleteOptions {
  readonly onDelta?: (delta: string) => void;
  readonly signal?: AbortSignal;
}

/**
 * A model behind one interface: given the transcript and tool specs, return (and optionally
 * stream) text and tool calls with token usage. Failures are `ProviderError`s.
 */
export interface Provider {
  /** The configuration's provider name (`scripted`, `openai`). */
  readonly name: string;
  complete(request: ProviderRequest, options?: CompleteOptions): Promise<ProviderResponse>;
}

/** Longest provider error message kept. */
export const PROVIDER_MESSAGE_CAP = 300;

/**
 * A provider failure. `message` is sanitised (no API key, no URL credentials, tokens masked,
 * capped); `retryable` says whether a later attempt may succeed (5xx, 429, timeout, network).
 */
export class ProviderError extends Error {
  readonly code = 'PROVIDER_FAILED' as const;

  constructor(
    message: string,
    readonly retryable: boolean = false,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * Sanitises a message for a `ProviderError`: removes every given secret verbatim, masks
 * tokens, credential URLs and e-mail addresses, collapses whitespace, caps the length.
 */
export function sanitizeProviderMessage(message: string, secrets: readonly string[] = []): string {
  let out = message;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[REDACTED]');
  }
  out = maskSecrets(out).replace(/\s+/g, ' ').trim();
  return capText(out || 'The provider failed', PROVIDER_MESSAGE_CAP);
}

/** Waits `ms`, rejecting with a `ProviderError` when `signal` aborts. */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new ProviderError('The provider call was aborted'));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ProviderError('The provider call was aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
