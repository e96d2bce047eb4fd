import { Injectable } from '@nestjs/common';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { RequestContext } from '../../../platform/auth/request-context';
import { TransactionRunner, type Tx } from '../../../platform/database/transaction-runner';
import { Refusal } from '../../../common/refusal';
import type { ConfigurationView } from '../../configurations';
import { RunsService, type RunView } from '../../runs';
import type { ConversationStatus } from '../core/conversation-status';
import { cleanMessage, viewOf, type ViewContext } from '../core/conversation-input';
import type { ConversationEntity } from '../persistence/conversation.entity';
import { ConversationsRepository, type NewMessage } from '../persistence/conversations.repository';
import type { MessageEntity } from '../persistence/message.entity';
import { busy, ChatChecks, nextView, type ViewContextCommand } from './chat-checks';
import { ConversationEvents } from './conversation-events';
import { ConversationReads } from './conversation-reads';
import { ConversationSync } from './conversation-sync';
import { TurnInputsReader, type TurnInputs } from './turn-inputs';

export interface SendMessageCommand {
  readonly conversationId: string;
  readonly text: string;
  readonly viewContext?: ViewContextCommand | null;
}

/** Earlier messages sent to the model with a turn. */
export const HISTORY_MESSAGES = 20;

/** What a turn is queued from, every check passed. */
interface TurnPlan {
  readonly user: AuthUser;
  readonly conversation: ConversationEntity;
  readonly text: string;
  readonly view: ViewContext;
  readonly configuration: ConfigurationView;
  readonly inputs: TurnInputs;
  /** The waiting process proposal this message withdraws, if any. */
  readonly withdraw: RunView | null;
}

/**
 * `sendMessage`: a new turn, queued as a run of the chat configuration and carried by a worker
 * (docs/chat-and-skills.md). Every refusal comes before anything is written, and every status
 * change is a conditional UPDATE.
 */
@Injectable()
export class SendMessage {
  constructor(
    private readonly repository: ConversationsRepository,
    private readonly checks: ChatChecks,
    private readonly reads: ConversationReads,
    private readonly turnInputs: TurnInputsReader,
    private readonly runs: RunsService,
    private readonly transactions: TransactionRunner,
    private readonly events: ConversationEvents,
    private readonly sync: ConversationSync,
  ) {}

  /**
   * Sends a message. A waiting process proposal is withdrawn (guarded cancel); a waiting
   * non-process run answers APPROVAL_STILL_PENDING; a running turn CONVERSATION_BUSY.
   */
  async send(ctx: RequestContext, command: SendMessageCommand): Promise<ConversationEntity> {
    const plan = await this.plan(ctx, command);
    const turn = await this.transactions.run((tx) => this.queue(tx, plan));
    await this.events.changed(turn.conversation, turn.messages);
    await this.dispatch(turn.conversation, turn.runId);
    return turn.conversation;
  }

  /** Every check of a turn, in order, and what it is queued from; nothing written yet. */
  private async plan(ctx: RequestContext, command: SendMessageCommand): Promise<TurnPlan> {
    const user = ctx.viewer;
    const text = cleanMessage(command.text);
    let conversation = await this.reads.own(ctx, command.conversationId);
    const view = command.viewContext
      ? await this.checks.view(user, nextView(conversation, command.viewContext))
      : viewOf(conversation);
    const setup = await this.checks.setup(ctx);
    const configuration = setup.task.configuration;
    if (configuration.deletedAt || !configuration.isActive) {
      throw new Refusal('CONFIGURATION_INACTIVE', "The chat's configuration is not active");
    }
    conversation = await this.sync.repair(conversation);
    const withdraw = await this.proposalToWithdraw(conversation);
    const inputs = await this.turnInputs.read(user, conversation, setup, view);
    return { user, conversation, text, view, configuration, inputs, withdraw };
  }

  /** The waiting proposal a message replaces: only a process's; none while idle. */
  private async proposalToWithdraw(conversation: ConversationEntity): Promise<RunView | null> {
    if (conversation.status === 'PROCESSING') throw busy();
    if (conversation.status !== 'AWAITING_APPROVAL' && conversation.status !== 'AWAITING_INPUT') return null;
    const waiting = conversation.activeRunId ? await this.runs.findRunById(conversation.activeRunId) : null;
    if (!waiting || waiting.processPin === null) {
      throw new Refusal(
        'APPROVAL_STILL_PENDING',
        'Decide the waiting proposal before sending a new message',
        {
          runId: conversation.activeRunId,
        },
      );
    }
    return waiting;
  }

  /** In one transaction: the withdrawal, the queued run, the conversation's move and its messages. */
  private async queue(
    tx: Tx,
    { user, conversation, text, view, configuration, inputs, withdraw }: TurnPlan,
  ): Promise<{ conversation: ConversationEntity; runId: string; messages: MessageEntity[] }> {
    const from = conversation.status as ConversationStatus;
    const notices: NewMessage[] = [];
    if (withdraw) {
      // why: off the proposal first, so the withdrawal's settle (which tells this module inside
      // the transaction) finds no conversation to move; this send says PROPOSAL_WITHDRAWN.
      const detached = await this.repository.transition(
        conversation.id,
        [from],
        { activeRunId: null },
        withdraw.id,
      );
      if (!detached || !(await this.runs.withdrawWaiting(tx, withdraw.id))) throw busy();
      notices.push(notice(conversation.id, 'PROPOSAL_WITHDRAWN', {}, withdraw.id));
    }
    const history = await this.repository.historyOf(conversation.id, HISTORY_MESSAGES);
    const { plan } = inputs;
    const turn = await this.runs.enqueueTurn({
      owner: user,
      configuration,
      prompt: text,
      messages: history.map((m) => ({ role: m.role === 'USER' ? 'user' : 'assistant', content: m.text })),
      skills: plan.forcedSkills,
      contextNote: inputs.contextNote,
      subjectPageId: view.pageId,
      subjectLanguageId: view.pageId === null ? null : (view.languageId ?? 0),
      invocation: inputs.invocation,
      predecessorRunId: plan.predecessorRunId,
      catalogueVersions: inputs.catalogueVersions,
      versions: inputs.versions,
    });
    // why: guarded on the skill state the plan was made from: a pick landing in between is
    // neither overwritten nor consumed by a turn that did not invoke it (CONVERSATION_BUSY).
    const claimed = await this.repository.transition(
      conversation.id,
      [from],
      {
        status: 'PROCESSING',
        lastRunId: turn.runId,
        activeRunId: turn.runId,
        deciding: false,
        viewPageId: view.pageId,
        viewLanguageId: view.languageId,
        viewModule: view.module,
        ...(plan.clearsStartPending ? { skillStartPending: false } : {}),
      },
      withdraw ? null : conversation.activeRunId,
      { identifier: conversation.skillIdentifier, startPending: conversation.skillStartPending },
    );
    if (!claimed) throw busy();
    const messages: NewMessage[] = [
      ...notices,
      { conversationId: conversation.id, role: 'USER', text, runId: turn.runId },
    ];
    if (turn.droppedProcess) {
      // why: said once, before the answer, language-neutral; never part of the model's history.
      messages.push(
        notice(conversation.id, 'PROCESS_DROPPED', { reason: turn.droppedProcess.reason }, turn.runId),
      );
    }
    return {
      conversation: claimed,
      runId: turn.runId,
      messages: await this.repository.insertMessages(messages),
    };
  }

  /**
   * Starts the turn's run: a live worker takes it, else this instance carries it (as decisions
   * fall back); where this instance has no free slot either, the conversation says the turn
   * waits for capacity (a worker, or this instance's reconcile, picks it up later).
   */
  private async dispatch(conversation: ConversationEntity, runId: string): Promise<void> {
    if ((await this.runs.dispatchTurn(runId)) !== 'WAITING') return;
    const [message] = await this.repository.insertMessages([
      notice(conversation.id, 'TURN_WAITING', {}, runId),
    ]);
    await this.events.changed(conversation, message ? [message] : []);
  }
}

/** A language-neutral notice in the conversation (rendered per reader, docs/chat-and-skills.md). */
function notice(
  conversationId: string,
  kind: string,
  args: Record<string, unknown>,
  runId: string | null,
): NewMessage {
  return { conversationId, role: 'NOTICE', text: '', notice: kind, noticeArgs: args, runId };
}
