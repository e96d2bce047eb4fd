import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';

/** The token usage stored on runs, summed for the daily budget. */
@Injectable()
export class RunUsageRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Tokens the owner's runs of a configuration created since `since` have stored, leaving out
   * one run (the one asking, which counts its live total instead). Reads the owner's runs of
   * the day through run_owner_created_idx.
   */
  async ownerTokensSince(
    ownerId: number,
    configurationId: number,
    since: Date,
    exceptRunId: string,
  ): Promise<number> {
    const rows: Array<{ n: string | number | null }> = await managerOf(this.dataSource).query(
      `SELECT COALESCE(SUM(prompt_tokens::bigint + completion_tokens), 0) AS n FROM run
        WHERE owner_id = $1 AND created_at >= $2 AND configuration_id = $3 AND id <> $4`,
      [ownerId, since, configurationId, exceptRunId],
    );
    return Number(rows[0]?.n ?? 0);
  }
}
