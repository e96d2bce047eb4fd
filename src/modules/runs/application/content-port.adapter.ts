import {
  LeaseLostError,
  ok,
  PreviewChangedError,
  refused,
  type ContentPort,
  type PageChange,
  type PageFields,
  type PageLocator,
  type PageSearchHit,
  type PageView,
  type PortResult,
  type RunOwner,
  type WrittenRecord,
} from '../../../agent';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { isRefusal } from '../../../common/refusal';
import type { GuardedTextWrite, PagesService, TextReads } from '../../content';

/**
 * Thrown inside a call's one-statement unit when its write cannot go in the completion's
 * statement (no text to start from, or its guard failed when the statement ran): nothing was
 * written or stored, and the call is carried out again inside a transaction.
 */
export class CarriedWriteLost extends Error {
  constructor() {
    super('the write could not ride in its completion; carried out again in a transaction');
  }
}

/**
 * How a write joins the run's lease: `run` opens a transaction, `mark` marks the run's pending
 * effect applied inside it (false when the lease was lost), so the write and the mark commit
 * together or not at all. Inside the call's unit of work (`AgentPorts.atomically`) `run` joins
 * it and `mark` has nothing to do: the call's completion in the same transaction fences it.
 * Where that unit is one statement (`carries`), the write is planned, handed over with
 * `carry` and sent in the completion's statement, which fences it (EffectWrites).
 */
export interface WriteFence {
  run<T>(work: () => Promise<T>): Promise<T>;
  mark(): Promise<boolean>;
  carries(): boolean;
  /** False when the unit carries a write already: the call must run in a transaction. */
  carry(write: GuardedTextWrite): boolean;
}

/**
 * The content module as the agent's page tools see it, acting as the run's owner (loaded once
 * per segment). A refusal of the content module (a page the owner may not show or edit) is a
 * refused result the model reads as a tool error; anything else is a fault and propagates.
 */
export class OwnerContentPort implements ContentPort {
  constructor(
    private readonly pages: PagesService,
    private readonly owner: AuthUser,
    private readonly fence?: WriteFence,
    /** Texts read ahead for this segment's writes (`Segment.readAhead`). */
    private readonly ahead?: TextReads,
  ) {}

  async readPage(_owner: RunOwner, at: PageLocator): Promise<PortResult<PageView>> {
    return this.guard(async () => {
      const read = await this.pages.readPageText(this.owner, at.pageId, at.languageId, at.workspaceId);
      const text = read.text;
      return {
        ...at,
        slug: read.page.slug,
        title: text?.title ?? null,
        body: text?.body ?? null,
        seoTitle: text?.seoTitle ?? null,
        seoDescription: text?.seoDescription ?? null,
      };
    });
  }

  async search(_owner: RunOwner, query: string): Promise<PortResult<PageSearchHit[]>> {
    return this.guard(async () => {
      const hits = await this.pages.search(this.owner, query, 10);
      return hits.map((h) => ({ pageId: h.pageId, title: h.title, slug: h.slug }));
    });
  }

  async previewUpdate(_owner: RunOwner, change: PageChange): Promise<PortResult<PageFields>> {
    return this.guard(async () => {
      // why: planning an update without fields checks the owner's edit rights and reads the
      // text the change would start from (workspace row, else live), writing nothing.
      const { text } = await this.pages.planTextUpdate(this.owner, locator(change));
      return fieldsOf(text);
    });
  }

  async applyUpdate(
    _owner: RunOwner,
    change: PageChange,
    holds?: (current: PortResult<PageFields>) => boolean,
  ): Promise<PortResult<WrittenRecord>> {
    // why: with `holds`, the text the write starts from is judged before anything is written:
    // under the write's lock in a transaction (what it throws rolls it back), or on the read
    // the carried write is guarded by (what it throws ends the call before anything is sent).
    const before = holds
      ? (text: PageFields) => {
          if (!holds(ok(fieldsOf(text)))) throw new PreviewChangedError();
        }
      : undefined;
    const result = await this.guard(async () => {
      const input = { ...locator(change), ...change.fields };
      const fence = this.fence;
      if (!fence) await this.pages.updateText(this.owner, input, before);
      else if (fence.carries()) {
        // why: the write goes with the call's completion; where it cannot (no text to start
        // from, a second write in the call), the call runs again in a transaction that writes
        // it here.
        const write = await this.pages.planGuardedTextUpdate(this.owner, input, before, this.ahead);
        if (write === 'no-text') throw new CarriedWriteLost();
        if (write !== 'unchanged' && !fence.carry(write)) throw new CarriedWriteLost();
      } else {
        await fence.run(async () => {
          // why: a process that lost its lease (paused, cut off) must not write when it wakes.
          if (!(await fence.mark())) throw new LeaseLostError();
          await this.pages.updateText(this.owner, input, before);
        });
      }
      return { table: 'page_text', id: `${change.pageId}:${change.languageId}:${change.workspaceId}` };
    });
    // why: a refusal is a preview too ("cannot be carried out: ..."); one the decider was not
    // shown means the page changed (its rights or its existence) since they approved.
    if (!result.ok && holds && !holds(result)) throw new PreviewChangedError();
    return result;
  }

  private async guard<T>(work: () => Promise<T>): Promise<PortResult<T>> {
    try {
      return ok(await work());
    } catch (e) {
      if (isRefusal(e)) return refused(e.message);
      throw e;
    }
  }
}

/** The editable fields of a page text, as the page tools see them. */
function fieldsOf(text: PageFields): PageFields {
  return { title: text.title, body: text.body, seoTitle: text.seoTitle, seoDescription: text.seoDescription };
}

function locator(change: PageChange): { pageId: number; languageId: number; workspaceId: number } {
  return { pageId: change.pageId, languageId: change.languageId, workspaceId: change.workspaceId };
}
