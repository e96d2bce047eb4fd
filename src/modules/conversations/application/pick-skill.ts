import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../../platform/auth/request-context';
import type { CatalogueEntry } from '../../skills';
import type { ConversationEntity } from '../persistence/conversation.entity';
import { ConversationsRepository } from '../persistence/conversations.repository';
import { busy, ChatChecks } from './chat-checks';
import { ConversationEvents } from './conversation-events';
import { ConversationReads } from './conversation-reads';

/** `skillCatalogue` and `setConversationSkill`: the skills on offer, and picking one. */
@Injectable()
export class PickSkill {
  constructor(
    private readonly repository: ConversationsRepository,
    private readonly checks: ChatChecks,
    private readonly reads: ConversationReads,
    private readonly events: ConversationEvents,
  ) {}

  /** The skills the viewer may pick: the chat configuration's and the Task's, deduplicated. */
  async catalogue(ctx: RequestContext): Promise<CatalogueEntry[]> {
    return (await this.checks.setup(ctx)).catalogue;
  }

  /**
   * Sets (or with null / "" removes) the skill: SKILL_UNKNOWN, SKILL_SECOND_APPROVER, and
   * CONVERSATION_BUSY while a turn runs. Sends no message; a process skill sets startPending.
   */
  async pick(
    ctx: RequestContext,
    conversationId: string,
    identifier: string | null | undefined,
  ): Promise<ConversationEntity> {
    const conversation = await this.reads.own(ctx, conversationId);
    if (conversation.status === 'PROCESSING') throw busy();
    const skill = identifier ? this.checks.skill(await this.checks.setup(ctx), identifier) : null;
    const written = await this.repository.setSkill(conversation.id, {
      identifier: skill?.identifier ?? null,
      skillId: skill?.skillId ?? null,
      isProcess: skill?.isProcess ?? false,
      startPending: skill?.isProcess ?? false,
    });
    if (!written) throw busy();
    const updated = await this.reads.require(conversation.id);
    await this.events.changed(updated, []);
    return updated;
  }
}
