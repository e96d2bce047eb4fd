import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { RequestContext } from '../../../platform/auth/request-context';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { Refusal } from '../../../common/refusal';
import { PagesService } from '../../content';
import { cleanTitle, MAX_TITLE_LENGTH, type ViewContext } from '../core/conversation-input';
import type { ConversationEntity } from '../persistence/conversation.entity';
import { ConversationsRepository } from '../persistence/conversations.repository';
import { ChatChecks } from './chat-checks';
import { ConversationReads } from './conversation-reads';

export interface CreateConversationCommand {
  readonly pageId?: string | null;
  readonly languageId?: number | null;
  readonly skill?: string | null;
  readonly title?: string | null;
}

/** `createConversation`: a conversation about a page in a language, with a skill. */
@Injectable()
export class StartConversation {
  constructor(
    private readonly repository: ConversationsRepository,
    private readonly checks: ChatChecks,
    private readonly reads: ConversationReads,
    private readonly pages: PagesService,
    private readonly transactions: TransactionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Starts a conversation; checks 1-5 of the design in order, before anything is written:
   * PAGE_NOT_ACCESSIBLE, LANGUAGE_NOT_ACCESSIBLE, SKILL_UNKNOWN, SKILL_SECOND_APPROVER,
   * TOO_MANY_CONVERSATIONS. A language without a page is ignored.
   */
  async start(ctx: RequestContext, command: CreateConversationCommand): Promise<ConversationEntity> {
    const user = ctx.viewer;
    const title = cleanTitle(command.title);
    const view = await this.checks.view(user, {
      pageId: command.pageId ?? null,
      languageId: command.languageId ?? null,
      module: null,
    });
    const setup = await this.checks.setup(ctx);
    const skill = command.skill ? this.checks.skill(setup, command.skill) : null;
    const id = randomUUID();
    const heading = title ?? (await this.defaultTitle(view));
    await this.transactions.run(async () => {
      // why: the count and the insert share a lock on the owner's row, so two concurrent
      // starts cannot both pass the limit.
      await this.repository.lockOwner(user.id);
      if ((await this.repository.countActive(user.id)) >= this.config.chatMaxActiveConversations) {
        throw new Refusal(
          'TOO_MANY_CONVERSATIONS',
          `At most ${this.config.chatMaxActiveConversations} conversations may be open at once`,
        );
      }
      await this.repository.insert({
        id,
        ownerId: user.id,
        title: heading,
        status: 'IDLE',
        viewPageId: view.pageId,
        viewLanguageId: view.languageId,
        viewModule: view.module,
        skillIdentifier: skill?.identifier ?? null,
        skillId: skill?.skillId ?? null,
        skillIsProcess: skill?.isProcess ?? false,
        skillStartPending: skill?.isProcess ?? false,
        lastRunId: null,
        activeRunId: null,
        deciding: false,
        archivedAt: null,
      });
    });
    return this.reads.require(id);
  }

  private async defaultTitle(view: ViewContext): Promise<string> {
    if (view.pageId === null) return 'New conversation';
    const text = await this.pages.readText(view.pageId, view.languageId ?? 0);
    return (text?.title ? `About ${text.title}` : `About page ${view.pageId}`).slice(0, MAX_TITLE_LENGTH);
  }
}
