import { Resolver, Subscription } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { Authenticator } from '../../../platform/auth/authenticator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { EventBus } from '../../../platform/pubsub/event-bus';
import { subscriptionStream } from '../../../platform/pubsub/subscription-stream';
import { forbidden } from '../../../common/refusal';
import { INBOX_TOPIC, isWaiting } from '../../runs';
import { InboxService } from '../application/inbox.service';
import { InboxChangeTracker } from '../core/inbox-change';
import { toInboxItemModel } from './decision.mapper';
import { InboxItemModel } from './decision.model';

@Resolver(() => InboxItemModel)
export class InboxChangedResolver {
  constructor(
    private readonly bus: EventBus,
    private readonly inbox: InboxService,
    private readonly authenticator: Authenticator,
  ) {}

  @Subscription(() => InboxItemModel, {
    description:
      "Runs entering or leaving the viewer's inbox: change ADDED (started waiting), UPDATED (the same turn announced again) or REMOVED (no longer waiting).",
    resolve: (item: InboxItemModel) => item,
  })
  @Allow(Access.Authenticated)
  async inboxChanged(@Ctx() ctx: RequestContext): Promise<AsyncIterableIterator<InboxItemModel>> {
    // why: a token revoked (or an identity provider's token expired) since the operation's
    // context was read opens no new stream; `reload` knows both kinds of token.
    const current = await this.authenticator.reload(ctx.viewer);
    if (!current) throw forbidden('The token is no longer valid');
    let user: AuthUser = current;
    const changes = new InboxChangeTracker();
    return subscriptionStream<{ runId: string }, InboxItemModel>({
      subscribe: (push) => this.bus.subscribe(INBOX_TOPIC, push),
      onEvent: async (event, control) => {
        const fresh = await this.authenticator.refresh(user);
        if (!fresh) return control.fail(forbidden('The token is no longer valid'));
        user = fresh;
        // why: one read per event for all its subscribers; each viewer's entry is decided in memory.
        const context = await this.inbox.sharedContext(event);
        const entry = context ? this.inbox.entryIn(user, context) : null;
        if (!entry) return;
        const change = changes.next(entry.run.id, isWaiting(entry.run.status), entry.run.turn);
        control.emit(toInboxItemModel(entry, user.id, change));
      },
    });
  }
}
