import { Injectable } from '@nestjs/common';
import type { PendingTurn } from '../../../agent';
import type { AuthUser } from '../../../platform/auth/auth-user';
import type { JoinedRead } from '../../../platform/database/joined-read';
import { mayEditPageText, mayShowPage, PageAccess, PagesService } from '../../content';
import { deciderPermits, DeciderPageRights, gatePageIds } from '../core/decider-rule';

/**
 * Check 13 of docs/decisions.md: may the decider perform, as themselves, every write the
 * turn proposes (approval), or run every pending call and the input tool (input)? The calls'
 * arguments carry the run's defaults already resolved (page, language). The rule itself is
 * `deciderPermits`; this loads the pages it names (one statement, whatever their number).
 */
@Injectable()
export class DeciderGate {
  constructor(private readonly pages: PagesService) {}

  /** True when the decider may perform what the pending turn would do. */
  async permits(decider: AuthUser, pending: PendingTurn): Promise<boolean> {
    return DeciderGate.permitsWith(decider, pending, await this.pagesFor([pending]));
  }

  /**
   * The pages the gate needs for several turns, with their languages, in one statement; none
   * where `known` (a page read already, e.g. with the run) is every page they name.
   */
  async pagesFor(turns: readonly PendingTurn[], known?: PageAccess | null): Promise<Map<number, PageAccess>> {
    const ids = turns.flatMap((t) => gatePageIds(t.kind, t.calls));
    if (ids.length === 0) return new Map<number, PageAccess>();
    if (known && ids.every((id) => id === known.page.id)) return new Map([[known.page.id, known]]);
    return this.pages.accessOf(ids);
  }

  /**
   * The access of the page a run is about, read with the run (a decision's): the page its calls
   * name unless they name another, so the gate then needs no read of its own.
   */
  joinedRunPageAccess(): JoinedRead<PageAccess> {
    return this.pages.joinedRunPageAccess();
  }

  /** The same rule over pages the caller has loaded (the inbox loads a whole page of runs at once). */
  static permitsWith(
    decider: AuthUser,
    pending: PendingTurn,
    pages: ReadonlyMap<number, PageAccess>,
  ): boolean {
    return deciderPermits(pending.kind, pending.calls, DeciderGate.rightsOf(decider, pages));
  }

  /** The pages the gate names for this turn (to load them in a batch). */
  static pageIds(pending: PendingTurn): number[] {
    return gatePageIds(pending.kind, pending.calls);
  }

  private static rightsOf(
    user: AuthUser,
    pages: ReadonlyMap<number, PageAccess>,
  ): Map<number, DeciderPageRights> {
    const rights = new Map<number, DeciderPageRights>();
    for (const [id, { page, languageIds }] of pages) {
      rights.set(id, {
        show: mayShowPage(user, page),
        writableLanguageIds: languageIds.filter((l) => mayEditPageText(user, page, l, languageIds)),
      });
    }
    return rights;
  }
}
