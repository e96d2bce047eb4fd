import type { PauseKind, PendingCall } from '../../../agent';

/** What the gate needs to know about one page for the decider (judged by the content policies). */
export interface DeciderPageRights {
  /** `mayShowPage` for the decider. */
  readonly show: boolean;
  /** The page's languages whose text the decider may write (`mayEditPageText`). */
  readonly writableLanguageIds: readonly number[];
}

const pageIdOf = (args: Readonly<Record<string, unknown>>): number => Number(args.pageId);

/** The page ids the gate looks at for this turn (approval: the writes; input: every call). */
export function gatePageIds(kind: PauseKind, calls: readonly PendingCall[]): number[] {
  const ids = new Set<number>();
  for (const call of calls) {
    if (kind === 'APPROVAL' && !call.writes) continue;
    if (call.toolName !== 'pages_update' && call.toolName !== 'pages_read') continue;
    const id = pageIdOf(call.arguments);
    if (Number.isInteger(id) && id >= 1 && id <= 2_147_483_647) ids.add(id);
  }
  return [...ids];
}

/**
 * Check 13 of docs/decisions.md, the decider gate, over pages judged beforehand (`rights`;
 * a page absent from it is unknown or hidden). Approval: every write must be one the decider
 * may perform as themselves; `pages_update` needs a page they may show and whose text they
 * may write in that language. Input: every call; `pages_read` needs a page they may show.
 * `pages_search`, `ask_user` and unknown tools pass (an unknown tool cannot execute at all).
 */
export function deciderPermits(
  kind: PauseKind,
  calls: readonly PendingCall[],
  rights: ReadonlyMap<number, DeciderPageRights>,
): boolean {
  return calls.every((call) => {
    if (kind === 'APPROVAL' && !call.writes) return true;
    const page = rights.get(pageIdOf(call.arguments));
    switch (call.toolName) {
      case 'pages_update':
        return (
          page !== undefined &&
          page.show &&
          page.writableLanguageIds.includes(Number(call.arguments.languageId ?? 0))
        );
      case 'pages_read':
        return page !== undefined && page.show;
      default:
        return true;
    }
  });
}
