import { Injectable } from '@nestjs/common';
import type { PendingTurn } from '../../../agent';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { ConfigurationsService } from '../../configurations';
import { PageAccessLookup, type PageAccess } from '../../content';
import { RunLists, runAccess, RunsService, type RunView } from '../../runs';
import { approveRefusal, type ApproveRefusal } from '../core/approve-refusal';
import { DeciderGate } from './decider-gate';

/** One inbox entry: a waiting run the viewer may decide, and what they may do with it. */
export interface InboxEntry {
  readonly run: RunView;
  readonly detailVisible: boolean;
  readonly mayApprove: boolean;
  /** Why `mayApprove` is false; null where it is true. */
  readonly approveRefusal: ApproveRefusal | null;
  readonly decidableHere: boolean;
}

export interface InboxQuery {
  readonly first: number;
  readonly after: string | null;
  /** Deprecated offset paging (rows skipped after `after`). */
  readonly offset?: number;
}

export interface InboxPage {
  readonly edges: ReadonlyArray<{ readonly entry: InboxEntry; readonly cursor: string }>;
  readonly hasNextPage: boolean;
}

/**
 * The inbox: runs in WAITING_FOR_APPROVAL or WAITING_FOR_INPUT that the viewer may decide,
 * oldest first. Owners see their own; admins and AGENT_APPROVE holders see every waiting run.
 */
@Injectable()
export class InboxService {
  /** Per `inbox.changed` event object: the context its subscribers share. */
  private readonly contexts = new WeakMap<object, Promise<InboxContext | null>>();

  constructor(
    private readonly runs: RunsService,
    private readonly lists: RunLists,
    private readonly configurations: ConfigurationsService,
    private readonly pages: PageAccessLookup,
  ) {}

  /**
   * One page of the inbox, after the cursor `after` when given (docs/pagination.md).
   * `request` keys the batching of page look-ups (the request's context): the gate's pages of
   * the whole page of runs are loaded together.
   */
  async page(user: AuthUser, query: InboxQuery, request: object = {}): Promise<InboxPage> {
    const everyone = user.isAdmin || user.grants.has('AGENT_APPROVE');
    const page = await this.lists.waiting(
      everyone ? null : user.id,
      query.first,
      query.after,
      query.offset ?? 0,
    );
    const entries = await this.entries(
      user,
      page.edges.map((edge) => edge.run),
      request,
    );
    return {
      edges: page.edges.map((edge, i) => ({ entry: entries[i]!, cursor: edge.cursor })),
      hasNextPage: page.hasNextPage,
    };
  }

  /** The inbox entry of one run for this viewer, or null where they may not decide it. */
  async entryFor(user: AuthUser, run: RunView): Promise<InboxEntry | null> {
    if (!runAccess(user, run).decide) return null;
    return (await this.entries(user, [run], {}))[0] ?? null;
  }

  /**
   * What every viewer's entry for a run is built from (the run, its turn, its configuration's
   * four-eyes rule, the gate's pages), read once for an `inbox.changed` event: its subscribers
   * share one read (keyed by the event object the bus hands to all of them), and each one's
   * entry is then decided in memory (`entryIn`). Null when the run does not exist.
   */
  sharedContext(event: { runId: string }): Promise<InboxContext | null> {
    let context = this.contexts.get(event);
    if (!context) {
      context = this.runs
        .findRunById(event.runId)
        .then(async (run) => (run ? (await this.contextsOf([run], {}))[0]! : null));
      this.contexts.set(event, context);
    }
    return context;
  }

  /** The viewer's entry from a shared context (no reads), or null where they may not decide it. */
  entryIn(user: AuthUser, context: InboxContext): InboxEntry | null {
    if (!runAccess(user, context.run).decide) return null;
    return entryOf(user, context);
  }

  private async entries(user: AuthUser, runs: readonly RunView[], request: object): Promise<InboxEntry[]> {
    return (await this.contextsOf(runs, request)).map((context) => entryOf(user, context));
  }

  private async contextsOf(runs: readonly RunView[], request: object): Promise<InboxContext[]> {
    const turns = new Map<string, PendingTurn | null>(runs.map((r) => [r.id, this.runs.pendingTurn(r)]));
    const pageIds = [...turns.values()].flatMap((t) => (t ? DeciderGate.pageIds(t) : []));
    const [configurations, pages] = await Promise.all([
      this.configurations.getByIds([...new Set(runs.map((r) => r.configurationId))]),
      this.pages.load(request, pageIds),
    ]);
    return runs.map((run) => ({
      run,
      turn: turns.get(run.id) ?? null,
      fourEyes: configurations.get(run.configurationId)?.requireSecondApprover === true,
      pages,
    }));
  }
}

/** A run with what deciding on it depends on, for any viewer. */
export interface InboxContext {
  readonly run: RunView;
  readonly turn: PendingTurn | null;
  readonly fourEyes: boolean;
  readonly pages: ReadonlyMap<number, PageAccess>;
}

function entryOf(user: AuthUser, { run, turn, fourEyes, pages }: InboxContext): InboxEntry {
  const access = runAccess(user, run);
  const refusal = approveRefusal({
    fourEyes,
    isInitiator: run.ownerId === user.id,
    // why: the gate judges approvals only here; an input turn's gate answers on submission.
    gatePasses: turn?.kind !== 'APPROVAL' || DeciderGate.permitsWith(user, turn, pages),
  });
  return {
    run,
    detailVisible: access.detail,
    mayApprove: refusal === null,
    approveRefusal: refusal,
    decidableHere: run.processPin === null,
  };
}
