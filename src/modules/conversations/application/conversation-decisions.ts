import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../../platform/auth/request-context';
import { Refusal } from '../../../common/refusal';
import { DecisionsService, type DecideCommand } from '../../approvals';
import type { ConversationEntity } from '../persistence/conversation.entity';
import { ConversationsRepository } from '../persistence/conversations.repository';
import { ConversationEvents } from './conversation-events';
import { ConversationSync } from './conversation-sync';
import { ConversationReads } from './conversation-reads';

export interface ConversationDecisionCommand {
  readonly conversationId: string;
  readonly turnDigest: string;
  readonly approve?: boolean;
  readonly denialReason?: 'VARIANT' | 'SKIP' | null;
  readonly values?: unknown;
}

/**
 * Decisions in the chat: the proposal or question the conversation waits on is decided through
 * the approvals module on the durable path, with the conversation's own claim (waiting ->
 * PROCESSING) inside the decision's transaction, so a refused decision leaves it waiting.
 */
@Injectable()
export class ConversationDecisions {
  constructor(
    private readonly conversations: ConversationReads,
    private readonly repository: ConversationsRepository,
    private readonly decisions: DecisionsService,
    private readonly events: ConversationEvents,
    private readonly sync: ConversationSync,
  ) {}

  /** Approves or denies the run the conversation waits on. */
  async decideApproval(
    ctx: RequestContext,
    command: ConversationDecisionCommand,
  ): Promise<ConversationEntity> {
    return this.decide(ctx, command, 'AWAITING_APPROVAL', command.approve ? 'APPROVE' : 'DENY');
  }

  /** Answers the question the conversation waits on. */
  async submitInput(ctx: RequestContext, command: ConversationDecisionCommand): Promise<ConversationEntity> {
    return this.decide(ctx, command, 'AWAITING_INPUT', 'INPUT');
  }

  private async decide(
    ctx: RequestContext,
    command: ConversationDecisionCommand,
    waiting: 'AWAITING_APPROVAL' | 'AWAITING_INPUT',
    kind: DecideCommand['kind'],
  ): Promise<ConversationEntity> {
    const conversation = await this.sync.repair(await this.conversations.own(ctx, command.conversationId));
    if (conversation.status === 'PROCESSING' && conversation.deciding) {
      throw new Refusal('DECISION_IN_FLIGHT', 'A decision on this proposal is being carried out');
    }
    if (conversation.status !== waiting || !conversation.activeRunId) throw notWaiting(waiting);
    const runId = conversation.activeRunId;
    const claim = async (): Promise<void> => {
      const moved = await this.repository.transition(
        conversation.id,
        [waiting],
        { status: 'PROCESSING', deciding: true },
        runId,
      );
      if (!moved) throw new Refusal('DECISION_IN_FLIGHT', 'A decision on this proposal is being carried out');
    };
    try {
      await this.decisions.decide(ctx.withSurface('chat'), {
        kind,
        runId,
        turnDigest: command.turnDigest,
        reason: kind === 'DENY' ? (command.denialReason ?? null) : null,
        values: command.values,
        path: 'DURABLE',
        alongside: claim,
      });
    } catch (e) {
      // why: a run decided elsewhere meanwhile (the inbox) is no longer waiting; the
      // conversation follows its run (RUN_FINISHED_OUTSIDE) rather than showing a stale card.
      if (e instanceof Refusal && (e.code === 'RUN_NOT_WAITING' || e.code === 'ALREADY_RESUMING')) {
        await this.sync.repair(conversation);
        // why: read again: the run's own settle may have moved the conversation meanwhile.
        const now = await this.repository.findById(conversation.id);
        if (!now || now.status !== waiting) throw notWaiting(waiting);
      }
      throw e;
    }
    const updated = await this.conversations.require(conversation.id);
    await this.events.changed(updated, []);
    return updated;
  }
}

const notWaiting = (waiting: 'AWAITING_APPROVAL' | 'AWAITING_INPUT'): Refusal =>
  waiting === 'AWAITING_APPROVAL'
    ? new Refusal('NOT_AWAITING_APPROVAL', 'The conversation is not waiting for an approval')
    : new Refusal('NOT_AWAITING_INPUT', 'The conversation is not waiting for input');
