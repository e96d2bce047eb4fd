import { Args, ID, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { connectionOf } from '../../../platform/graphql/connection.model';
import { DeliveryLog } from '../application/delivery-log';
import { toDeliveryModel } from './webhook.mapper';
import { WebhookDeliveryConnectionModel, WebhookDeliveryModel } from './webhook.model';

/** The delivery log and its replay (admins). */
@Resolver()
export class WebhookDeliveriesResolver {
  constructor(private readonly log: DeliveryLog) {}

  @Query(() => WebhookDeliveryConnectionModel, {
    description:
      'Admins: webhook deliveries with their tries, newest first; of one endpoint or one event when given.',
  })
  @Allow(Access.Admin)
  async webhookDeliveries(
    @Ctx() ctx: RequestContext,
    @Args('endpointId', { type: () => ID, nullable: true }) endpointId: string | null,
    @Args('eventId', { type: () => ID, nullable: true }) eventId: string | null,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 50 }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
  ): Promise<WebhookDeliveryConnectionModel> {
    const page = await this.log.page(ctx.viewer, { endpointId, eventId }, first ?? 50, after);
    return connectionOf(page, after, toDeliveryModel);
  }

  @Mutation(() => WebhookDeliveryModel, {
    description: 'Admins: sends a delivery again, as a new delivery of the same event to the same endpoint.',
  })
  @Allow(Access.Admin)
  async replayWebhookDelivery(
    @Ctx() ctx: RequestContext,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<WebhookDeliveryModel> {
    return toDeliveryModel(await this.log.replay(ctx.viewer, id));
  }
}
