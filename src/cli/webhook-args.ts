import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../modules/webhooks';
import { text, UsageError, UUID, type CommandSpec, type OptionValues } from './command-spec';

/** The webhook commands (docs/webhooks.md): the same operations as the admin API. */
export type WebhookCommand =
  | {
      readonly kind: 'webhook-add';
      readonly url: string;
      readonly events: readonly WebhookEventType[];
      readonly enabled: boolean;
      readonly description: string | null;
    }
  | { readonly kind: 'webhook-list' }
  | {
      readonly kind: 'webhook-update';
      readonly id: string;
      readonly url: string | null;
      readonly events: readonly WebhookEventType[] | null;
      readonly enabled: boolean | null;
    }
  | { readonly kind: 'webhook-remove'; readonly id: string }
  | { readonly kind: 'webhook-rotate'; readonly id: string }
  | { readonly kind: 'webhook-deliveries'; readonly endpointId: string | null; readonly limit: number }
  | { readonly kind: 'webhook-replay'; readonly deliveryId: string };

const EVENTS_HELP = `  --events E    comma-separated: ${WEBHOOK_EVENT_TYPES.join(', ')}, or all`;

function events(values: OptionValues): WebhookEventType[] {
  const raw = text(values, 'events', 200);
  if (raw === 'all') return [...WEBHOOK_EVENT_TYPES];
  const names = raw.split(',').map((e) => e.trim());
  const unknown = names.find((n) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(n));
  if (unknown !== undefined) throw new UsageError(`--events: unknown event "${unknown}"`);
  return [...new Set(names)] as WebhookEventType[];
}

function uuid(values: OptionValues, name: string): string {
  const value = text(values, name, 36);
  if (!UUID.test(value)) throw new UsageError(`--${name} "${value}" is not an id (a UUID)`);
  return value.toLowerCase();
}

function onOff(values: OptionValues): boolean | null {
  if (values.enable === true && values.disable === true)
    throw new UsageError('--enable or --disable, not both');
  return values.enable === true ? true : values.disable === true ? false : null;
}

export const WEBHOOK_COMMANDS: ReadonlyArray<CommandSpec<WebhookCommand>> = [
  {
    words: ['webhook', 'add'],
    summary: 'register a webhook endpoint (prints its signing secret once, on the last line)',
    usage: [
      'webhook add --url URL --events E [--disable] [--description D]',
      '',
      '  --url URL     http(s); refused when it resolves to a private address (docs/webhooks.md)',
      EVENTS_HELP,
      '  --disable     register it disabled',
    ].join('\n'),
    options: {
      url: { type: 'string' },
      events: { type: 'string' },
      disable: { type: 'boolean' },
      description: { type: 'string' },
    },
    build: (values) => ({
      kind: 'webhook-add',
      url: text(values, 'url', 2000),
      events: events(values),
      enabled: values.disable !== true,
      description: typeof values.description === 'string' ? text(values, 'description', 200) : null,
    }),
  },
  {
    words: ['webhook', 'list'],
    summary: 'list the webhook endpoints (never their secrets)',
    usage: 'webhook list',
    options: {},
    build: () => ({ kind: 'webhook-list' }),
  },
  {
    words: ['webhook', 'update'],
    summary: "change a webhook endpoint's url or events, or enable / disable it",
    usage: ['webhook update --id ID [--url URL] [--events E] [--enable | --disable]', '', EVENTS_HELP].join(
      '\n',
    ),
    options: {
      id: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
    },
    build: (values) => ({
      kind: 'webhook-update',
      id: uuid(values, 'id'),
      url: typeof values.url === 'string' ? text(values, 'url', 2000) : null,
      events: typeof values.events === 'string' ? events(values) : null,
      enabled: onOff(values),
    }),
  },
  {
    words: ['webhook', 'remove'],
    summary: 'delete a webhook endpoint with its delivery log',
    usage: 'webhook remove --id ID',
    options: { id: { type: 'string' } },
    build: (values) => ({ kind: 'webhook-remove', id: uuid(values, 'id') }),
  },
  {
    words: ['webhook', 'rotate'],
    summary: 'give a webhook endpoint a new signing secret (printed once, on the last line)',
    usage: 'webhook rotate --id ID',
    options: { id: { type: 'string' } },
    build: (values) => ({ kind: 'webhook-rotate', id: uuid(values, 'id') }),
  },
  {
    words: ['webhook', 'deliveries'],
    summary: 'show the webhook delivery log, newest first, with every try',
    usage: [
      'webhook deliveries [--endpoint ID] [--limit N]',
      '',
      '  --limit N    at most N deliveries (default 20, at most 200)',
    ].join('\n'),
    options: { endpoint: { type: 'string' }, limit: { type: 'string' } },
    build(values) {
      const limit = Number(typeof values.limit === 'string' ? values.limit : '20');
      if (!Number.isInteger(limit) || limit < 1 || limit > 200)
        throw new UsageError('--limit must be 1 to 200');
      const endpointId = typeof values.endpoint === 'string' ? uuid(values, 'endpoint') : null;
      return { kind: 'webhook-deliveries', endpointId, limit };
    },
  },
  {
    words: ['webhook', 'replay'],
    summary: 'send a webhook delivery again',
    usage: 'webhook replay --delivery ID',
    options: { delivery: { type: 'string' } },
    build: (values) => ({ kind: 'webhook-replay', deliveryId: uuid(values, 'delivery') }),
  },
];
