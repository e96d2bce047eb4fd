import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { RequestContext } from '../../../platform/auth/request-context';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { parseSerialId, parseUuid } from '../../../common/ids';
import { forbidden, notFound, Refusal } from '../../../common/refusal';
import { ConfigurationsService, type ChatSetup, type ConfigurationView } from '../../configurations';
import {
  languageNotAccessible,
  mayEditLanguage,
  pageNotAccessible,
  PagesService,
  type PageView,
} from '../../content';
import { RunsService, type RunView } from '../../runs';
import type { CatalogueEntry } from '../../skills';
import type { ConversationStatus } from '../core/conversation-status';
import {
  cleanMessage,
  cleanModule,
  cleanTitle,
  MAX_TITLE_LENGTH,
  viewOf,
  type ViewContext,
} from '../core/conversation-input';
import { ConversationEntity } from '../persistence/conversation.entity';
import { ConversationsRepository, type NewMessage } from '../persistence/conversations.repository';
import type { MessageEntity } from '../persistence/message.entity';
import { ConversationEvents } from './conversation-events';
import { ConversationSync } from './conversation-sync';
import { TurnInputsReader } from './turn-inputs';

export interface CreateConversationCommand {
  readonly pageId?: string | null;
  readonly languageId?: number | null;
  readonly skill?: string | null;
  readonly title?: string | null;
}

export interface ViewContextCommand {
  readonly pageId?: string | null;
  readonly languageId?: number | null;
  readonly module?: string | null;
}

export interface SendMessageCommand {
  readonly conversationId: string;
  readonly text: string;
  readonly viewContext?: ViewContextCommand | null;
}

export interface ConversationDecisionCommand {
  readonly conversationId: string;
  readonly turnDigest: string;
  readonly approve?: boolean;
  readonly denialReason?: 'VARIANT' | 'SKIP' | null;
  readonly values?: unknown;
}

/** Earlier messages sent to the model with a turn. */
export const HISTORY_MESSAGES = 20;
/** Conversations `conversations` lists at most. */
export const LIST_LIMIT = 200;

/**
 * The chat (docs/chat-and-skills.md): conversations about a page in a language,
 * with a skill; each turn is a QUEUED run of the chat configuration carried by a worker
 * (decisions on it: ConversationDecisions). Every refusal comes before anything is written,
 * and every status change is a conditional UPDATE.
 */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly repository: ConversationsRepository,
    private readonly configurations: ConfigurationsService,
    private readonly pages: PagesService,
    private readonly turnInputs: TurnInputsReader,
    private readonly runs: RunsService,
    private readonly transactions: TransactionRunner,
    private readonly events: ConversationEvents,
    private readonly sync: ConversationSync,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The skills the viewer may pick: the chat configuration's and the Task's, deduplicated. */
  async skillCatalogue(ctx: RequestContext): Promise<CatalogueEntry[]> {
    return (await this.setup(ctx)).catalogue;
  }

  /**
   * Starts a conversation; checks 1-5 of the design in order, before anything is written:
   * PAGE_NOT_ACCESSIBLE, LANGUAGE_NOT_ACCESSIBLE, SKILL_UNKNOWN, SKILL_SECOND_APPROVER,
   * TOO_MANY_CONVERSATIONS. A language without a page is ignored.
   */
  async create(ctx: RequestContext, command: CreateConversationCommand): Promise<ConversationEntity> {
    const user = ctx.viewer;
    const title = cleanTitle(command.title);
    const view = await this.checkView(user, {
      pageId: command.pageId ?? null,
      languageId: command.languageId ?? null,
      module: null,
    });
    const setup = await this.setup(ctx);
    const skill = command.skill ? this.checkSkill(setup, command.skill) : null;
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
    return this.require(id);
  }

  /**
   * Sets (or with null / "" removes) the skill: SKILL_UNKNOWN, SKILL_SECOND_APPROVER, and
   * CONVERSATION_BUSY while a turn runs. Sends no message; a process skill sets startPending.
   */
  async setSkill(ctx: RequestContext, conversationId: string, identifier: string | null | undefined) {
    const conversation = await this.own(ctx, conversationId);
    if (conversation.status === 'PROCESSING') throw busy();
    const skill = identifier ? this.checkSkill(await this.setup(ctx), identifier) : null;
    const written = await this.repository.setSkill(conversation.id, {
      identifier: skill?.identifier ?? null,
      skillId: skill?.skillId ?? null,
      isProcess: skill?.isProcess ?? false,
      startPending: skill?.isProcess ?? false,
    });
    if (!written) throw busy();
    const updated = await this.require(conversation.id);
    await this.events.changed(updated, []);
    return updated;
  }

  /**
   * Sends a message: a new turn, queued as a run of the chat configuration. A waiting process
   * proposal is withdrawn (guarded cancel); a waiting non-process run answers
   * APPROVAL_STILL_PENDING; a running turn CONVERSATION_BUSY.
   */
  async sendMessage(ctx: RequestContext, command: SendMessageCommand): Promise<ConversationEntity> {
    const user = ctx.viewer;
    const text = cleanMessage(command.text);
    let conversation = await this.own(ctx, command.conversationId);
    const view = command.viewContext
      ? await this.checkView(user, this.nextView(conversation, command.viewContext))
      : viewOf(conversation);
    const setup = await this.setup(ctx);
    const configuration = setup.task.configuration;
    if (configuration.deletedAt || !configuration.isActive) {
      throw new Refusal('CONFIGURATION_INACTIVE', "The chat's configuration is not active");
    }
    conversation = await this.sync.repair(conversation);
    let withdraw: RunView | null = null;
    if (conversation.status === 'PROCESSING') throw busy();
    if (conversation.status === 'AWAITING_APPROVAL' || conversation.status === 'AWAITING_INPUT') {
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
      withdraw = waiting;
    }
    const inputs = await this.turnInputs.read(user, conversation, setup, view);
    const { plan } = inputs;
    const from = conversation.status as ConversationStatus;
    const current = conversation;
    const result = await this.transactions.run(async (tx) => {
      const notices: NewMessage[] = [];
      if (withdraw) {
        // why: off the proposal first, so the withdrawal's settle (which tells this module inside
        // the transaction) finds no conversation to move; this send says PROPOSAL_WITHDRAWN.
        const detached = await this.repository.transition(
          current.id,
          [from],
          { activeRunId: null },
          withdraw.id,
        );
        if (!detached || !(await this.runs.withdrawWaiting(tx, withdraw.id))) throw busy();
        notices.push(this.notice(current.id, 'PROPOSAL_WITHDRAWN', {}, withdraw.id));
      }
      const history = await this.repository.historyOf(current.id, HISTORY_MESSAGES);
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
        current.id,
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
        withdraw ? null : current.activeRunId,
        { identifier: current.skillIdentifier, startPending: current.skillStartPending },
      );
      if (!claimed) throw busy();
      const messages: NewMessage[] = [
        ...notices,
        { conversationId: current.id, role: 'USER', text, runId: turn.runId },
      ];
      if (turn.droppedProcess) {
        // why: said once, before the answer, language-neutral; never part of the model's history.
        messages.push(
          this.notice(current.id, 'PROCESS_DROPPED', { reason: turn.droppedProcess.reason }, turn.runId),
        );
      }
      return {
        conversation: claimed,
        runId: turn.runId,
        messages: await this.repository.insertMessages(messages),
      };
    });
    await this.events.changed(result.conversation, result.messages);
    await this.dispatch(result.conversation, result.runId);
    return result.conversation;
  }

  /**
   * Starts the turn's run: a live worker takes it, else this instance carries it (as decisions
   * fall back); where this instance has no free slot either, the conversation says the turn
   * waits for capacity (a worker, or this instance's reconcile, picks it up later).
   */
  private async dispatch(conversation: ConversationEntity, runId: string): Promise<void> {
    if ((await this.runs.dispatchTurn(runId)) !== 'WAITING') return;
    const [message] = await this.repository.insertMessages([
      this.notice(conversation.id, 'TURN_WAITING', {}, runId),
    ]);
    await this.events.changed(conversation, message ? [message] : []);
  }

  /** The viewer's conversations (repaired where stuck), most recent first. */
  async list(ctx: RequestContext): Promise<ConversationEntity[]> {
    const rows = await this.repository.listForOwner(ctx.viewer.id, LIST_LIMIT);
    return Promise.all(rows.map((c) => this.sync.repair(c)));
  }

  /** The conversation where the viewer owns it (admins: any); null otherwise. */
  async find(ctx: RequestContext, id: string): Promise<ConversationEntity | null> {
    const row = await this.repository.findById(parseUuid(id, 'id'));
    if (!row || (row.ownerId !== ctx.viewer.id && !ctx.viewer.isAdmin)) return null;
    return this.sync.repair(row);
  }

  /** Messages of conversations, oldest first. */
  async messagesOf(ids: readonly string[]): Promise<Map<string, MessageEntity[]>> {
    return this.repository.messagesOf(ids);
  }

  /** The live events of the viewer's own conversation. */
  async openEvents(ctx: RequestContext, conversationId: string) {
    const conversation = await this.own(ctx, conversationId);
    return this.events.open(ctx.viewer, conversation);
  }

  private notice(
    conversationId: string,
    notice: string,
    args: Record<string, unknown>,
    runId: string | null,
  ): NewMessage {
    return { conversationId, role: 'NOTICE', text: '', notice, noticeArgs: args, runId };
  }

  /** The chat's Task and catalogue for the viewer; CHAT_NOT_ALLOWED where no Task exists. */
  private async setup(ctx: RequestContext): Promise<ChatSetup> {
    const setup = await this.configurations.chatSetupFor(ctx);
    if (!setup) throw new Refusal('CHAT_NOT_ALLOWED', 'No chat Task is configured');
    return setup;
  }

  /** Checks 3 and 4: the skill is in the catalogue; no process skill under four-eyes. */
  private checkSkill(setup: ChatSetup, identifier: string): CatalogueEntry {
    const entry = setup.catalogue.find((e) => e.identifier === identifier);
    if (!entry)
      throw new Refusal('SKILL_UNKNOWN', 'This skill is not in the chat catalogue', {
        skill: identifier.slice(0, 100),
      });
    if (entry.isProcess && setup.task.configuration.requireSecondApprover) {
      throw new Refusal(
        'SKILL_SECOND_APPROVER',
        "A guided process cannot run here: the chat's configuration requires a second approver",
      );
    }
    return entry;
  }

  /** Checks 1 and 2 on a view context; the language is kept only with a page. */
  private async checkView(
    user: AuthUser,
    view: { pageId: string | number | null; languageId: number | null; module: string | null },
  ): Promise<ViewContext> {
    const module = view.module === null ? null : cleanModule(view.module);
    if (view.pageId === null || view.pageId === '') return { pageId: null, languageId: null, module };
    const pageId = typeof view.pageId === 'number' ? view.pageId : parseSerialId(view.pageId, 'pageId');
    const page = await this.pages.getPageForUser(user, pageId);
    if (!page) throw pageNotAccessible(pageId);
    if (view.languageId === null) return { pageId, languageId: null, module };
    const languages = await this.pages.siteLanguageIds(page);
    if (!Number.isInteger(view.languageId) || !mayEditLanguage(user, page, view.languageId, languages)) {
      throw languageNotAccessible(pageId, view.languageId);
    }
    return { pageId, languageId: view.languageId, module };
  }

  /** A turn's view context: the same page without a language keeps the conversation's. */
  private nextView(conversation: ConversationEntity, input: ViewContextCommand) {
    const pageId = input.pageId ?? null;
    const samePage = pageId !== null && pageId !== '' && String(conversation.viewPageId) === String(pageId);
    return {
      pageId,
      languageId: input.languageId ?? (samePage ? conversation.viewLanguageId : null),
      module: input.module ?? conversation.viewModule,
    };
  }

  private async defaultTitle(view: ViewContext): Promise<string> {
    if (view.pageId === null) return 'New conversation';
    const text = await this.pages.readText(view.pageId, view.languageId ?? 0);
    return (text?.title ? `About ${text.title}` : `About page ${view.pageId}`).slice(0, MAX_TITLE_LENGTH);
  }

  /** The viewer's own conversation; NOT_FOUND for anyone else's (no leak). */
  async own(ctx: RequestContext, id: string): Promise<ConversationEntity> {
    const row = await this.repository.findById(parseUuid(id, 'conversationId'));
    // why: an admin may read any conversation, so knows it exists; acting in it stays the owner's.
    if (!row || (row.ownerId !== ctx.viewer.id && !ctx.viewer.isAdmin))
      throw notFound('Conversation not found');
    if (row.ownerId !== ctx.viewer.id) throw forbidden('Only its owner acts in a conversation');
    return row;
  }

  /** A conversation known to exist (read again after a change). */
  async require(id: string): Promise<ConversationEntity> {
    const row = await this.repository.findById(id);
    if (!row) throw new Error(`conversation ${id} vanished`);
    return row;
  }
}

const busy = (): Refusal => new Refusal('CONVERSATION_BUSY', 'A turn of this conversation is running');

export type { PageView, ConfigurationView };
