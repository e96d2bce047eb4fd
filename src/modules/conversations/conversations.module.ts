import { Module } from '@nestjs/common';
import { ApprovalsModule } from '../approvals';
import { AuthModule } from '../auth';
import { ConfigurationsModule } from '../configurations';
import { ContentModule } from '../content';
import { RunsModule } from '../runs';
import { SkillsModule } from '../skills';
import { ConversationEvents } from './application/conversation-events';
import { ConversationSync } from './application/conversation-sync';
import { ChatChecks } from './application/chat-checks';
import { ConversationReads } from './application/conversation-reads';
import { PickSkill } from './application/pick-skill';
import { SendMessage } from './application/send-message';
import { StartConversation } from './application/start-conversation';
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
    ChatChecks,
    ConversationReads,
    StartConversation,
    PickSkill,
    SendMessage,
    ConversationDecisions,
    ConversationsResolver,
    ConversationPagesResolver,
    ConversationPages,
    ConversationPagesRepository,
  ],
  exports: [ConversationSync],
})
export class ConversationsModule {}
