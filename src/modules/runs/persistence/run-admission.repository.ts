import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';

/**
 * The database side of admitting a new run (RunAdmission): a lock on the owner's row and the
 * count of the owner's unfinished runs, both inside the start's transaction.
 */
@Injectable()
export class RunAdmissionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Locks the owner's user row until the transaction ends, so the count below and the insert
   * that follows it are one step for every other start of the same owner. why: NO KEY UPDATE
   * still conflicts with itself and with the conversations' owner lock (FOR UPDATE), but not
   * with the key-share locks that inserts referencing the user (decisions, audit rows) take.
   */
  async lockOwner(userId: number): Promise<void> {
    await managerOf(this.dataSource).query('SELECT id FROM app_user WHERE id = $1 FOR NO KEY UPDATE', [
      userId,
    ]);
  }

  /**
   * The owner's runs not yet finished: queued, running, waiting, decision recorded. Each of them
   * may still land in an approver's inbox. The predicate is the partial index's
   * (run_owner_unfinished_idx), so the count reads only the owner's open runs, not their history.
   */
  async countUnfinished(ownerId: number): Promise<number> {
    const rows: Array<{ n: number }> = await managerOf(this.dataSource).query(
      `SELECT count(*)::int AS n FROM run
        WHERE owner_id = $1 AND status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')`,
      [ownerId],
    );
    return rows[0]?.n ?? 0;
  }
}
