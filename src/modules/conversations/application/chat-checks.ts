import { Injectable } from '@nestjs/common';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { RequestContext } from '../../../platform/auth/request-context';
import { parseSerialId } from '../../../common/ids';
import { Refusal } from '../../../common/refusal';
import { ConfigurationsService, type ChatSetup } from '../../configurations';
import { pageNotAccessible, PagesService } from '../../content';
import type { CatalogueEntry } from '../../skills';
import { cleanModule, type ViewContext } from '../core/conversation-input';
import type { ConversationEntity } from '../persistence/conversation.entity';

export interface ViewContextCommand {
  readonly pageId?: string | null;
  readonly languageId?: number | null;
  readonly module?: string | null;
}

/** A view context as a start or a turn asks for it, before check 1 and 2 ran on it. */
export interface ViewRequest {
  readonly pageId: string | number | null;
  readonly languageId: number | null;
  readonly module: string | null;
}

/** A turn of this conversation is running: what every change that needs it idle answers. */
export const busy = (): Refusal => new Refusal('CONVERSATION_BUSY', 'A turn of this conversation is running');

/**
 * The checks a start, a skill pick and a turn share (docs/chat-and-skills.md, checks 1-4): the
 * chat's Task exists for the viewer, the page and language are the viewer's to edit, the skill
 * is in the catalogue and may run under the configuration. Each refuses before anything is
 * written.
 */
@Injectable()
export class ChatChecks {
  constructor(
    private readonly configurations: ConfigurationsService,
    private readonly pages: PagesService,
  ) {}

  /** The chat's Task and catalogue for the viewer; CHAT_NOT_ALLOWED where no Task exists. */
  async setup(ctx: RequestContext): Promise<ChatSetup> {
    const setup = await this.configurations.chatSetupFor(ctx);
    if (!setup) throw new Refusal('CHAT_NOT_ALLOWED', 'No chat Task is configured');
    return setup;
  }

  /** Checks 3 and 4: the skill is in the catalogue; no process skill under four-eyes. */
  skill(setup: ChatSetup, identifier: string): CatalogueEntry {
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
  async view(user: AuthUser, view: ViewRequest): Promise<ViewContext> {
    const module = view.module === null ? null : cleanModule(view.module);
    if (view.pageId === null || view.pageId === '') return { pageId: null, languageId: null, module };
    const pageId = typeof view.pageId === 'number' ? view.pageId : parseSerialId(view.pageId, 'pageId');
    const page = await this.pages.getPageForUser(user, pageId);
    if (!page) throw pageNotAccessible(pageId);
    if (view.languageId === null) return { pageId, languageId: null, module };
    await this.pages.assertLanguageAccess(user, page, view.languageId);
    return { pageId, languageId: view.languageId, module };
  }
}

/** A turn's view context: the same page without a language keeps the conversation's. */
export function nextView(conversation: ConversationEntity, input: ViewContextCommand): ViewRequest {
  const pageId = input.pageId ?? null;
  const samePage = pageId !== null && pageId !== '' && String(conversation.viewPageId) === String(pageId);
  return {
    pageId,
    languageId: input.languageId ?? (samePage ? conversation.viewLanguageId : null),
    module: input.module ?? conversation.viewModule,
  };
}
