import { Module } from '@nestjs/common';
import { ApprovalsModule } from '../approvals';
import { AuthModule } from '../auth';
import { ConfigurationsModule } from '../configurations';
import { ContentModule } from '../content';
import { RunsModule } from '../runs';
import { SkillsModule } from '../skills';
import { ConversationEvents } from './application/conversation-events';
import { ConversationSync } from './application/conversation-sync';
import { ConversationsService } from './application/conversations.service';
import { ConversationDecisions } from './application/conversation-decisions';
import { ConversationsResolver } from './graphql/conversations.resolver';
import { ConversationPagesResolver } from './graphql/conversation-pages.resolver';
import { ConversationPages } from './application/conversation-pages';
import { ConversationPagesRepository } from './persistence/conversation-pages.repository';
import { ConversationsRepository } from './persistence/conversations.repository';
import { TurnInputsReader } from './application/turn-inputs';

/**
 * The chat (docs/chat-and-skills.md). Also part of a worker process: a turn or a
 * decision carried out there tells its conversation through ConversationSync.
 */
@Module({
  imports: [AuthModule, ConfigurationsModule, ContentModule, SkillsModule, RunsModule, ApprovalsModule],
  providers: [
    ConversationsRepository,
    ConversationEvents,
    ConversationSync,
    TurnInputsReader,
    ConversationsService,
    ConversationDecisions,
    ConversationsResolver,
    ConversationPagesResolver,
    ConversationPages,
    ConversationPagesRepository,
  ],
  exports: [ConversationsService, ConversationSync],
})
export class ConversationsModule {}
