import { Injectable, OnModuleInit } from '@nestjs/common';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { RunSettlements, RunsService, type RunSettled, type RunStatus } from '../../runs';
import { statusForRun, STUCK_AFTER_MS, type ConversationStatus } from '../core/conversation-status';
import type { Notice } from '../core/notices';
import type { ConversationEntity } from '../persistence/conversation.entity';
import { ConversationsRepository, type NewMessage } from '../persistence/conversations.repository';
import { ConversationEvents } from './conversation-events';

/** What is known of the run a conversation is on. */
interface RunFacts {
  readonly runId: string;
  /** Null: the run is gone. */
  readonly status: RunStatus | null;
  readonly answer?: string | null;
  readonly errorMessage?: string | null;
  readonly handBack?: string | null;
  /** The run has not moved (lease expired, or queued without progress) for a while. */
  readonly stalled?: boolean;
}

const BUSY: readonly ConversationStatus[] = ['PROCESSING', 'AWAITING_APPROVAL', 'AWAITING_INPUT'];

/**
 * Keeps a conversation in step with the run it is on. Told by the runs module inside the
 * transaction that settles a run (so the answer message commits with the run's new state), and
 * asked when a conversation is read whose status no longer matches its run (the repair: a run
 * that moved without settling, such as a decision taken in the inbox, or one that stalled).
 * Each change is one conditional UPDATE on the status and the run it expects, with its messages
 * in the same transaction, so it happens once.
 */
@Injectable()
export class ConversationSync implements OnModuleInit {
  constructor(
    private readonly repository: ConversationsRepository,
    private readonly runs: RunsService,
    private readonly settlements: RunSettlements,
    private readonly transactions: TransactionRunner,
    private readonly events: ConversationEvents,
  ) {}

  onModuleInit(): void {
    this.settlements.register({
      onRunSettled: (e) => this.onRunSettled(e),
      // why: only a chat turn can be a conversation's active run (see `onRunSettled`).
      listensTo: (e) => Promise.resolve(e.chatTurn !== false),
      onApprovalExpired: (runId) => this.onApprovalExpired(runId),
    });
  }

  /**
   * The proposal the conversation shows lapsed: it moves on (the run continues as denied, or
   * fails right after, which settles the conversation as usual) with a notice saying why.
   */
  async onApprovalExpired(runId: string): Promise<void> {
    const conversation = await this.repository.findByActiveRun(runId);
    if (conversation?.status !== 'AWAITING_APPROVAL') return;
    await this.transactions.run(async (tx) => {
      const moved = await this.repository.transition(
        conversation.id,
        ['AWAITING_APPROVAL'],
        { status: 'PROCESSING', deciding: false },
        runId,
      );
      if (!moved) return;
      const messages = await this.repository.insertMessages([
        {
          conversationId: conversation.id,
          role: 'NOTICE',
          text: '',
          notice: 'APPROVAL_EXPIRED',
          noticeArgs: {},
          runId,
        },
      ]);
      tx.afterCommit(() => this.events.changed(moved, messages));
    });
  }

  async onRunSettled(event: RunSettled): Promise<void> {
    // why: a run not started as a chat turn is no conversation's; its settle asks nothing.
    if (event.chatTurn === false) return;
    const conversation = await this.repository.findByActiveRun(event.runId);
    if (!conversation) return;
    await this.apply(conversation, {
      runId: event.runId,
      status: event.status,
      answer: event.answer ?? null,
      errorMessage: event.errorMessage ?? null,
      handBack: event.handBack ?? null,
    });
  }

  /**
   * The conversation as its run says it should be: unchanged where they agree; otherwise
   * moved on (and its notices written) from the run's own status.
   */
  async repair(conversation: ConversationEntity): Promise<ConversationEntity> {
    if (!BUSY.includes(conversation.status as ConversationStatus)) return conversation;
    if (!conversation.activeRunId) {
      return (await this.apply(conversation, { runId: '', status: null })) ?? conversation;
    }
    const run = await this.runs.findRunById(conversation.activeRunId);
    const facts: RunFacts = run
      ? {
          runId: run.id,
          status: run.status as RunStatus,
          answer: run.answer,
          errorMessage: run.errorMessage,
          handBack: (run.handBack?.code as string | undefined) ?? null,
          stalled: isStalled(run),
        }
      : { runId: conversation.activeRunId, status: null };
    const expected = facts.status ? statusForRun(facts.status) : null;
    if (expected === conversation.status && !(expected === 'PROCESSING' && facts.stalled)) {
      if (!(conversation.deciding && expected !== 'PROCESSING')) return conversation;
    }
    return (await this.apply(conversation, facts)) ?? conversation;
  }

  /** Applies the run's state; the conversation after the change, or null when nothing changed. */
  private async apply(conversation: ConversationEntity, facts: RunFacts): Promise<ConversationEntity | null> {
    // why: joins the run's settle transaction when told of a settle; the event goes out after
    // the commit either way.
    return this.transactions.run(async (tx) => {
      const outcome = await this.transition(conversation, facts);
      if (!outcome) return null;
      tx.afterCommit(() => this.events.changed(outcome.conversation, outcome.messages));
      return outcome.conversation;
    });
  }

  private async transition(conversation: ConversationEntity, facts: RunFacts) {
    const id = conversation.id;
    const runId = conversation.activeRunId;
    const from = conversation.status as ConversationStatus;
    const notice = (code: Notice, args: Record<string, unknown> = {}): NewMessage => ({
      conversationId: id,
      role: 'NOTICE',
      text: '',
      notice: code,
      noticeArgs: args,
      runId: facts.runId || null,
    });
    const settle = async (status: ConversationStatus, messages: NewMessage[]) => {
      const moved = await this.repository.transition(
        id,
        [from],
        { status, activeRunId: null, deciding: false },
        runId,
      );
      if (!moved) return null;
      return { conversation: moved, messages: await this.repository.insertMessages(messages) };
    };

    // why: the chat's own decision moved it to PROCESSING; a run settling while the
    // conversation still shows the proposal was decided somewhere else (the inbox).
    const outside = from === 'AWAITING_APPROVAL' || from === 'AWAITING_INPUT';
    switch (facts.status) {
      case null:
        if (!isOld(conversation)) return null;
        return settle(from === 'PROCESSING' ? 'FAILED' : 'IDLE', [notice('TURN_LOST')]);
      case 'COMPLETED': {
        const messages: NewMessage[] = [];
        if (outside) messages.push(notice('RUN_FINISHED_OUTSIDE'));
        if (facts.answer) {
          messages.push({ conversationId: id, role: 'ASSISTANT', text: facts.answer, runId: facts.runId });
        } else if (!outside) {
          messages.push(notice('RUN_FINISHED_OUTSIDE'));
        }
        return settle('IDLE', messages);
      }
      case 'FAILED':
        return settle('FAILED', [
          notice('RUN_FAILED', facts.errorMessage ? { message: facts.errorMessage } : {}),
        ]);
      case 'CANCELLED':
        return settle('IDLE', [notice('RUN_CANCELLED')]);
      case 'WAITING_FOR_APPROVAL':
      case 'WAITING_FOR_INPUT': {
        const status = statusForRun(facts.status);
        const moved = await this.repository.transition(id, [from], { status, deciding: false }, runId);
        if (!moved) return null;
        const messages =
          facts.handBack && conversation.deciding
            ? [notice('DECISION_HANDED_BACK', { code: facts.handBack })]
            : [];
        return { conversation: moved, messages: await this.repository.insertMessages(messages) };
      }
      case 'QUEUED':
      case 'RUNNING':
      case 'DECISION_RECORDED': {
        // the run moves (decided elsewhere, or requeued)
        if (facts.stalled && from === 'PROCESSING' && isOld(conversation)) {
          return settle('FAILED', [notice('TURN_LOST')]);
        }
        if (from === 'PROCESSING') return null;
        const moved = await this.repository.transition(id, [from], { status: 'PROCESSING' }, runId);
        return moved ? { conversation: moved, messages: [] } : null;
      }
    }
  }
}

function isOld(conversation: ConversationEntity): boolean {
  return Date.now() - new Date(conversation.updatedAt).getTime() > STUCK_AFTER_MS;
}

/** A run that does not move: its lease expired, or it was never picked up. */
function isStalled(run: { status: string; leaseExpiresAt: Date | null; updatedAt: Date }): boolean {
  const now = Date.now();
  if (run.status === 'RUNNING')
    return run.leaseExpiresAt !== null && new Date(run.leaseExpiresAt).getTime() < now;
  return now - new Date(run.updatedAt).getTime() > STUCK_AFTER_MS;
}
