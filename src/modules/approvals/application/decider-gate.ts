import { Injectable } from '@nestjs/common';
import type { PendingTurn } from '../../../agent';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { mayEditPageText, mayShowPage, PagesService } from '../../content';

/**
 * Check 13 of docs/decisions.md: may the decider perform, as themselves, every write the
 * turn proposes (approval), or run every pending call and the input tool (input)? The calls'
 * arguments carry the run's defaults already resolved (page, language).
 */
@Injectable()
export class DeciderGate {
  constructor(private readonly pages: PagesService) {}

  /** True when the decider may perform what the pending turn would do. */
  async permits(decider: AuthUser, pending: PendingTurn): Promise<boolean> {
    for (const call of pending.calls) {
      if (pending.kind === 'APPROVAL' && !call.writes) continue;
      if (!(await this.mayRun(decider, call.toolName, call.arguments))) return false;
    }
    return true;
  }

  private async mayRun(
    user: AuthUser,
    tool: string,
    args: Readonly<Record<string, unknown>>,
  ): Promise<boolean> {
    switch (tool) {
      case 'pages_update': {
        const page = await this.pages.getPageForUser(user, Number(args.pageId));
        if (!page) return false;
        const languages = await this.pages.siteLanguageIds(page);
        return mayEditPageText(user, page, Number(args.languageId ?? 0), languages);
      }
      case 'pages_read': {
        const page = await this.pages.getPageForUser(user, Number(args.pageId));
        return page !== null && mayShowPage(user, page);
      }
      case 'pages_search':
      case 'ask_user':
        return true;
      default:
        // why: an unknown tool cannot execute at all (approving it only tells the model so),
        // so nobody is refused for it; the write it might stand for never happens.
        return true;
    }
  }
}
