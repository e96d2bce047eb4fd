import { Resolver, Subscription } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { Authenticator } from '../../../platform/auth/authenticator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { EventBus } from '../../../platform/pubsub/event-bus';
import { subscriptionStream } from '../../../platform/pubsub/subscription-stream';
import { forbidden } from '../../../shared/refusal';
import { INBOX_TOPIC, RunsRepository, toRunModel } from '../../runs';
import { InboxEntry, InboxService } from '../application/inbox.service';
import { InboxItemModel } from './decision.model';

@Resolver(() => InboxItemModel)
export class InboxChangedResolver {
  constructor(
    private readonly bus: EventBus,
    private readonly inbox: InboxService,
    private readonly runs: RunsRepository,
    private readonly authenticator: Authenticator,
  ) {}

  @Subscription(() => InboxItemModel, {
    description: "Runs entering or leaving the viewer's inbox.",
    resolve: (entry: InboxEntry) => ({ ...entry, run: toRunModel(entry.run) }),
  })
  @Allow(Access.Authenticated)
  inboxChanged(@Ctx() ctx: RequestContext): AsyncIterableIterator<InboxEntry> {
    let user: AuthUser = ctx.viewer;
    return subscriptionStream<{ runId: string }, InboxEntry>({
      subscribe: (push) => this.bus.subscribe(INBOX_TOPIC, push),
      onEvent: async ({ runId }, control) => {
        const fresh = await this.authenticator.refresh(user);
        if (!fresh) return control.fail(forbidden('The token is no longer valid'));
        user = fresh;
        const run = await this.runs.findById(runId);
        const entry = run ? await this.inbox.entryFor(user, run) : null;
        if (entry) control.emit(entry);
      },
    });
  }
}
