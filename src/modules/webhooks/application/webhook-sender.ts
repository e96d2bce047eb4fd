import { Inject, Injectable } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import type { AttemptView } from '../core/webhook-views';
import type { ClaimedDelivery } from '../core/webhook-views';
import { UrlGuard } from './url-guard';

/** The answer of a receiver kept in the log: the status code, or why there was none. */
export interface SendResult extends AttemptView {
  readonly ok: boolean;
}

const MAX_ERROR = 500;

/**
 * One POST of a delivery, signed as the Standard Webhooks specification says (the
 * `standardwebhooks` package: `webhook-id`, `webhook-timestamp`, `webhook-signature`), with a
 * timeout and without following redirects (a redirect could lead past the SSRF guard, which
 * runs again right before the request). A 2xx answer is a success; anything else is not.
 */
@Injectable()
export class WebhookSender {
  constructor(
    private readonly guard: UrlGuard,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async send(delivery: ClaimedDelivery): Promise<SendResult> {
    const attemptedAt = new Date();
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    const refused = await this.guard.refusalOf(delivery.url);
    if (refused) return { ok: false, attemptedAt, statusCode: null, error: refused, durationMs: took() };
    const body = JSON.stringify(delivery.payload);
    try {
      const signature = new Webhook(delivery.secret).sign(delivery.eventId, attemptedAt, body);
      const response = await fetch(delivery.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.config.webhooks.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Countersign-Webhooks',
          'webhook-id': delivery.eventId,
          'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
      });
      // why: the body is not needed, but left unread it would hold the connection.
      await response.body?.cancel().catch(() => undefined);
      const ok = response.status >= 200 && response.status < 300;
      return {
        ok,
        attemptedAt,
        statusCode: response.status,
        error: ok ? null : `The receiver answered ${response.status}`,
        durationMs: took(),
      };
    } catch (e) {
      return { ok: false, attemptedAt, statusCode: null, error: reasonOf(e), durationMs: took() };
    }
  }
}

function reasonOf(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError') return 'The receiver did not answer in time';
  const detail = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(e);
  return `The request failed: ${detail}`.slice(0, MAX_ERROR);
}
