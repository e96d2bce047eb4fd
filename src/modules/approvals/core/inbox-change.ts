/** What an `inboxChanged` event tells a client to do with the item it carries. */
export type InboxChange = 'ADDED' | 'UPDATED' | 'REMOVED';

/**
 * The id of an inbox item: stable per run and viewer, so a client cache keeps one entry per
 * waiting run (`InboxItem:<id>`) and an event replaces the item the `inbox` query gave.
 */
export function inboxItemId(runId: string, viewerId: number): string {
  return `${runId}:${viewerId}`;
}

/**
 * The change of one `inboxChanged` stream, per run: a run that waits is ADDED the first time
 * the stream announces it on that turn and UPDATED when the same turn is announced again (a
 * hand-back, another approval of a quorum); a run that stopped waiting is REMOVED (a client
 * drops the item if it has it). A new pause of the run is a new turn, so ADDED again.
 */
export class InboxChangeTracker {
  private readonly announced = new Map<string, number>();

  next(runId: string, waiting: boolean, turn: number): InboxChange {
    if (!waiting) {
      this.announced.delete(runId);
      return 'REMOVED';
    }
    const before = this.announced.get(runId);
    this.announced.set(runId, turn);
    return before === turn ? 'UPDATED' : 'ADDED';
  }
}
