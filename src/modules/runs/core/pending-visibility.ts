import type { PendingCall } from '../../../agent';

/**
 * What a viewer is shown of a waiting run's pending calls (docs/security.md "What deciders
 * see"). Pure: the caller has judged the named pages for the viewer (`mayShowPage`).
 */

/** The one line that stands for the preview of a call on a page the viewer may not show. */
export const WITHHELD_PREVIEW = 'Preview withheld: the call changes a page you may not show.';

const MAX_PAGE_ID = 2_147_483_647;

/**
 * The page a call names (`pageId` of its resolved arguments: `pages_update`, `pages_read`),
 * or null where it names none. A `pageId` that is no possible page id counts as naming a page
 * nobody may show, so it is never treated as "no page".
 */
export function pageIdOf(call: Pick<PendingCall, 'arguments'>): number | null | 'invalid' {
  const args = call.arguments as Readonly<Record<string, unknown>> | null | undefined;
  if (!args || !('pageId' in args) || args.pageId === undefined || args.pageId === null) return null;
  const id = Number(args.pageId);
  return Number.isInteger(id) && id >= 1 && id <= MAX_PAGE_ID ? id : 'invalid';
}

/** The distinct valid page ids the calls name (what to look up before judging them). */
export function pendingPageIds(calls: readonly Pick<PendingCall, 'arguments'>[]): number[] {
  const ids = new Set<number>();
  for (const call of calls) {
    const id = pageIdOf(call);
    if (typeof id === 'number') ids.add(id);
  }
  return [...ids];
}

/**
 * The calls as the viewer sees them: arguments only with detail access; a call naming a page
 * the viewer may not show (unknown pages alike) keeps its tool name and `writes` but loses its
 * arguments and has its preview lines replaced by {@link WITHHELD_PREVIEW} (calls without
 * preview lines keep none). Everything else is unchanged.
 */
export function callsForViewer(
  calls: readonly PendingCall[],
  viewer: { readonly detail: boolean; readonly showablePageIds: ReadonlySet<number> },
): PendingCall[] {
  return calls.map((call) => {
    const pageId = pageIdOf(call);
    const hidden = pageId !== null && (pageId === 'invalid' || !viewer.showablePageIds.has(pageId));
    return {
      ...call,
      arguments: viewer.detail && !hidden ? call.arguments : (null as never),
      preview: hidden && call.preview.length > 0 ? [WITHHELD_PREVIEW] : call.preview,
    };
  });
}

/**
 * Whether the viewer may read the run owner's groups (`Run.owner.groups`): with detail access
 * only (owner, admins). A decider without detail learns who started the run, not their rights.
 */
export function mayReadOwnerGroups(access: { readonly detail: boolean }): boolean {
  return access.detail;
}

/**
 * Whether the viewer may read the run's configuration in full (`Run.configuration`): with
 * detail access, or where they may use the configuration themselves (`mayUseConfiguration`),
 * the same configurations `configurations` lists for them.
 */
export function mayReadRunConfiguration(access: { readonly detail: boolean }, mayUse: boolean): boolean {
  return access.detail || mayUse;
}
