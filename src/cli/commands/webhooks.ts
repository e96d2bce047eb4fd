import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { DeliveryLog } from '../../modules/webhooks/application/delivery-log';
import { EnabledEndpoints } from '../../modules/webhooks/application/enabled-endpoints';
import { OutboxSignal } from '../../modules/webhooks/application/outbox-signal';
import { UrlGuard } from '../../modules/webhooks/application/url-guard';
import { WebhookEndpointsService } from '../../modules/webhooks/application/webhook-endpoints.service';
import type { EndpointView } from '../../modules/webhooks/core/webhook-views';
import { WebhookDeliveriesRepository } from '../../modules/webhooks/persistence/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../../modules/webhooks/persistence/webhook-endpoints.repository';
import { isRefusal } from '../../common/refusal';
import { TransactionRunner } from '../../platform/database/transaction-runner';
import type { WebhookCommand } from '../webhook-args';
import { CliFailure } from '../failure';

/**
 * The webhook commands run the admin API's own services (the same checks, the SSRF guard
 * included) as the operator: no user, so no admin check. A refusal becomes a CliFailure.
 */
export async function runWebhookCommand(
  ds: DataSource,
  config: AppConfig,
  cmd: WebhookCommand,
): Promise<string[]> {
  const endpoints = new WebhookEndpointsRepository(ds);
  const transactions = new TransactionRunner(ds);
  const service = new WebhookEndpointsService(
    endpoints,
    new UrlGuard(config),
    transactions,
    new EnabledEndpoints(endpoints, config),
  );
  const log = new DeliveryLog(new WebhookDeliveriesRepository(ds), transactions, new OutboxSignal());
  try {
    switch (cmd.kind) {
      case 'webhook-add': {
        const { endpoint, secret } = await service.register(null, {
          url: cmd.url,
          eventTypes: cmd.events,
          enabled: cmd.enabled,
          description: cmd.description,
        });
        return [line(endpoint), 'Signing secret (shown once):', secret];
      }
      case 'webhook-list': {
        const page = await service.page(null, 200, null);
        if (page.edges.length === 0) return ['No webhook endpoints yet: add one with `webhook add`.'];
        return page.edges.map((e) => line(e.node));
      }
      case 'webhook-update': {
        const endpoint = await service.update(null, cmd.id, {
          url: cmd.url,
          eventTypes: cmd.events,
          enabled: cmd.enabled,
        });
        return [line(endpoint)];
      }
      case 'webhook-remove':
        await service.delete(null, cmd.id);
        return [`Deleted webhook endpoint ${cmd.id}.`];
      case 'webhook-rotate': {
        const { endpoint, secret } = await service.rotateSecret(null, cmd.id);
        return [line(endpoint), 'New signing secret (shown once):', secret];
      }
      case 'webhook-deliveries': {
        const page = await log.page(null, { endpointId: cmd.endpointId }, cmd.limit, null);
        if (page.edges.length === 0) return ['No deliveries.'];
        return page.edges.map(({ node: d }) => {
          const tries = d.attempts.map((a) => a.statusCode ?? 'error').join(',') || '-';
          return [d.id, d.eventType, d.runId ?? '-', d.status, `tries: ${tries}`].join('  ');
        });
      }
      case 'webhook-replay': {
        const replay = await log.replay(null, cmd.deliveryId);
        return [`Queued ${replay.id} (a replay of ${cmd.deliveryId}); a worker sends it.`];
      }
    }
  } catch (e) {
    if (isRefusal(e)) throw new CliFailure(`${e.message} (${e.code})`);
    throw e;
  }
}

function line(e: EndpointView): string {
  return [e.id, e.enabled ? 'enabled ' : 'disabled', e.url, e.eventTypes.join(',')].join('  ');
}
