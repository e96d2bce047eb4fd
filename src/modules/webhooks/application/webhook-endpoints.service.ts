import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { cursorTimestamp, decodeCursor, encodeCursor } from '../../../common/cursor';
import { parseUuid } from '../../../common/ids';
import { badInput, forbidden, notFound } from '../../../common/refusal';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import type { WebhookEventType } from '../core/event-types';
import { newSigningSecret } from '../core/secret';
import { mayManageWebhooks, type EndpointView, type Page } from '../core/webhook-views';
import { WebhookEndpointsRepository, type EndpointChange } from '../persistence/webhook-endpoints.repository';
import { EnabledEndpoints } from './enabled-endpoints';
import { UrlGuard } from './url-guard';
import { pageSize } from '../../../common/page-size';

export interface EndpointSpec {
  readonly url: string;
  readonly eventTypes: readonly WebhookEventType[];
  readonly enabled?: boolean | null;
  readonly description?: string | null;
}

/** What to change of an endpoint; null or absent fields stay. */
export interface EndpointPatch {
  readonly url?: string | null;
  readonly eventTypes?: readonly WebhookEventType[] | null;
  readonly enabled?: boolean | null;
  readonly description?: string | null;
}

/** An endpoint with its signing secret: returned only on creation and on rotation. */
export interface EndpointWithSecret {
  readonly endpoint: EndpointView;
  readonly secret: string;
}

const ENDPOINTS = 'webhook-endpoints';
const MAX_PAGE = 200;
const MAX_DESCRIPTION = 200;

/**
 * Admins manage webhook endpoints (docs/webhooks.md): register (the secret is shown once),
 * change, enable or disable, rotate the secret, delete, list. Every refusal comes before a
 * write; each change NOTIFYs at its commit (a trigger), so every instance's cache of enabled
 * endpoints (EnabledEndpoints) drops what it knew once the change committed.
 */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly repository: WebhookEndpointsRepository,
    private readonly guard: UrlGuard,
    private readonly transactions: TransactionRunner,
    private readonly cache: EnabledEndpoints,
  ) {}

  async register(actor: Actor, spec: EndpointSpec): Promise<EndpointWithSecret> {
    const by = adminOf(actor);
    const eventTypes = checkedTypes(spec.eventTypes);
    const description = checkedDescription(spec.description);
    await this.guard.check(spec.url);
    const secret = newSigningSecret();
    const endpoint = await this.change(() =>
      this.repository.insert({
        id: randomUUID(),
        url: spec.url,
        eventTypes,
        enabled: spec.enabled ?? true,
        description: description ?? '',
        secret,
        createdBy: by?.id ?? null,
      }),
    );
    return { endpoint, secret };
  }

  async update(actor: Actor, id: string, change: EndpointPatch): Promise<EndpointView> {
    adminOf(actor);
    const endpointId = parseUuid(id, 'id');
    const set: EndpointChange = {
      ...(change.url != null ? { url: change.url } : {}),
      ...(change.eventTypes != null ? { eventTypes: checkedTypes(change.eventTypes) } : {}),
      ...(change.enabled != null ? { enabled: change.enabled } : {}),
      ...(change.description != null ? { description: checkedDescription(change.description)! } : {}),
    };
    if (set.url !== undefined) await this.guard.check(set.url);
    const endpoint = await this.change(() => this.repository.update(endpointId, set));
    if (!endpoint) throw notFound('No such webhook endpoint');
    return endpoint;
  }

  async rotateSecret(actor: Actor, id: string): Promise<EndpointWithSecret> {
    adminOf(actor);
    const secret = newSigningSecret();
    const endpoint = await this.change(() => this.repository.update(parseUuid(id, 'id'), { secret }));
    if (!endpoint) throw notFound('No such webhook endpoint');
    return { endpoint, secret };
  }

  async delete(actor: Actor, id: string): Promise<boolean> {
    adminOf(actor);
    const deleted = await this.change(() => this.repository.delete(parseUuid(id, 'id')));
    if (!deleted) throw notFound('No such webhook endpoint');
    return true;
  }

  async get(actor: Actor, id: string): Promise<EndpointView> {
    adminOf(actor);
    const endpoint = await this.repository.find(parseUuid(id, 'id'));
    if (!endpoint) throw notFound('No such webhook endpoint');
    return endpoint;
  }

  /** Endpoints oldest first, by cursor. */
  async page(actor: Actor, first: number, after: string | null): Promise<Page<EndpointView>> {
    adminOf(actor);
    const key = after ? endpointKey(after) : null;
    const limit = pageSize(first, MAX_PAGE);
    const rows = await this.repository.page(limit + 1, key);
    return {
      edges: rows.slice(0, limit).map((r) => ({
        cursor: encodeCursor(ENDPOINTS, [r.at, r.endpoint.id]),
        node: r.endpoint,
      })),
      hasNextPage: rows.length > limit,
    };
  }

  /** A change in its own transaction; this instance's cache is dropped once it committed. */
  private change<T>(write: () => Promise<T>): Promise<T> {
    return this.transactions.run(async (tx) => {
      const result = await write();
      tx.afterCommit(() => this.cache.forget());
      return result;
    });
  }
}

/** Who acts: a user through the API, or null for the command line (the operator). */
export type Actor = AuthUser | null;

function adminOf(actor: Actor): Actor {
  if (!mayManageWebhooks(actor)) throw forbidden('Only admins may manage webhooks');
  return actor;
}

function checkedTypes(types: readonly WebhookEventType[]): WebhookEventType[] {
  const unique = [...new Set(types)];
  if (unique.length === 0) throw badInput('eventTypes must name at least one event', { field: 'eventTypes' });
  return unique;
}

function checkedDescription(description: string | null | undefined): string | null {
  if (description == null) return null;
  if (description.length > MAX_DESCRIPTION) {
    throw badInput(`description is too long (at most ${MAX_DESCRIPTION} characters)`, {
      field: 'description',
    });
  }
  return description;
}

function endpointKey(cursor: string): { at: string; id: string } {
  const [at, id] = decodeCursor(ENDPOINTS, cursor, ['string', 'string']);
  return { at: cursorTimestamp(at!), id: parseUuid(String(id), 'after') };
}
