import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { OperatorWebhooks, type EndpointView } from '../../modules/webhooks';
import type { WebhookCommand } from '../webhook-args';
import { refusalsAsFailures } from '../failure';

/**
 * The webhook commands run the admin API's own services (the same checks, the SSRF guard
 * included) as the operator: no user, so no admin check. A refusal becomes a CliFailure.
 */
export async function runWebhookCommand(
  ds: DataSource,
  config: AppConfig,
  cmd: WebhookCommand,
): Promise<string[]> {
  return refusalsAsFailures(carryOut(OperatorWebhooks.over(ds, config), cmd));
}

async function carryOut(ops: OperatorWebhooks, cmd: WebhookCommand): Promise<string[]> {
  const { endpoints: service, deliveries: log } = ops;
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
}

function line(e: EndpointView): string {
  return [e.id, e.enabled ? 'enabled ' : 'disabled', e.url, e.eventTypes.join(',')].join('  ');
}
