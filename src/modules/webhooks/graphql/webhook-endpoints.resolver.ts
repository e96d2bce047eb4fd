import { Args, ID, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { connectionOf } from '../../../platform/graphql/connection.model';
import { WebhookEndpointsService, type EndpointWithSecret } from '../application/webhook-endpoints.service';
import { toEndpointModel, wireTypes } from './webhook.mapper';
import {
  CreateWebhookEndpointInput,
  UpdateWebhookEndpointInput,
  WebhookEndpointConnectionModel,
  WebhookEndpointModel,
  WebhookEndpointSecretModel,
} from './webhook.model';

/** Admins manage webhook endpoints (docs/webhooks.md). */
@Resolver()
export class WebhookEndpointsResolver {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Query(() => WebhookEndpointConnectionModel, {
    description: 'Admins: the webhook endpoints, oldest first, paged by cursor (first, after).',
  })
  @Allow(Access.Admin)
  async webhookEndpoints(
    @Ctx() ctx: RequestContext,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 50 }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
  ): Promise<WebhookEndpointConnectionModel> {
    return connectionOf(await this.endpoints.page(ctx.viewer, first ?? 50, after), after, toEndpointModel);
  }

  @Query(() => WebhookEndpointModel, { description: 'Admins: one webhook endpoint.' })
  @Allow(Access.Admin)
  async webhookEndpoint(
    @Ctx() ctx: RequestContext,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<WebhookEndpointModel> {
    return toEndpointModel(await this.endpoints.get(ctx.viewer, id));
  }

  @Mutation(() => WebhookEndpointSecretModel, {
    description: 'Admins: registers an endpoint; its signing secret is in the answer, and only there.',
  })
  @Allow(Access.Admin)
  async createWebhookEndpoint(
    @Ctx() ctx: RequestContext,
    @Args('input') input: CreateWebhookEndpointInput,
  ): Promise<WebhookEndpointSecretModel> {
    const created = await this.endpoints.register(ctx.viewer, {
      ...input,
      eventTypes: wireTypes(input.eventTypes),
    });
    return withSecret(created);
  }

  @Mutation(() => WebhookEndpointModel, {
    description: 'Admins: changes an endpoint (url, events, enabled, description); fields left out stay.',
  })
  @Allow(Access.Admin)
  async updateWebhookEndpoint(
    @Ctx() ctx: RequestContext,
    @Args('id', { type: () => ID }) id: string,
    @Args('input') input: UpdateWebhookEndpointInput,
  ): Promise<WebhookEndpointModel> {
    const eventTypes = input.eventTypes ? wireTypes(input.eventTypes) : undefined;
    return toEndpointModel(await this.endpoints.update(ctx.viewer, id, { ...input, eventTypes }));
  }

  @Mutation(() => WebhookEndpointSecretModel, {
    description: 'Admins: a new signing secret for the endpoint (the old one stops at once), shown once.',
  })
  @Allow(Access.Admin)
  async rotateWebhookSecret(
    @Ctx() ctx: RequestContext,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<WebhookEndpointSecretModel> {
    return withSecret(await this.endpoints.rotateSecret(ctx.viewer, id));
  }

  @Mutation(() => Boolean, { description: 'Admins: deletes an endpoint with its delivery log.' })
  @Allow(Access.Admin)
  async deleteWebhookEndpoint(
    @Ctx() ctx: RequestContext,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<boolean> {
    return this.endpoints.delete(ctx.viewer, id);
  }
}

function withSecret(created: EndpointWithSecret): WebhookEndpointSecretModel {
  return { endpoint: toEndpointModel(created.endpoint), secret: created.secret };
}
