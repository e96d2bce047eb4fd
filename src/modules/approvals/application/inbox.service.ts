import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { ConfigurationsService } from '../../configurations';
import { runAccess, RunsRepository, WAITING_STATUSES, type RunEntity } from '../../runs';

/** One inbox entry: a waiting run the viewer may decide, and what they may do with it. */
export interface InboxEntry {
  readonly run: RunEntity;
  readonly detailVisible: boolean;
  readonly mayApprove: boolean;
  readonly decidableHere: boolean;
}

/**
 * The inbox: runs in WAITING_FOR_APPROVAL or WAITING_FOR_INPUT that the viewer may decide,
 * oldest first. Owners see their own; admins and AGENT_APPROVE holders see every waiting run.
 */
@Injectable()
export class InboxService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly runs: RunsRepository,
    private readonly configurations: ConfigurationsService,
  ) {}

  async list(user: AuthUser, first: number, offset: number): Promise<InboxEntry[]> {
    const everyone = user.isAdmin || user.grants.has('AGENT_APPROVE');
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM run WHERE status = ANY($1::varchar[]) AND ($2::int IS NULL OR owner_id = $2)
        ORDER BY waiting_since ASC NULLS LAST, id ASC LIMIT $3 OFFSET $4`,
      [WAITING_STATUSES, everyone ? null : user.id, Math.min(Math.max(first, 0), 200), Math.max(offset, 0)],
    );
    const runs = await this.runs.findByIds(rows.map((r) => r.id));
    const byId = new Map(runs.map((r) => [r.id, r]));
    const ordered = rows.map((r) => byId.get(r.id)).filter((r): r is RunEntity => r !== undefined);
    return this.entries(user, ordered);
  }

  /** The inbox entry of one run for this viewer, or null where they may not decide it. */
  async entryFor(user: AuthUser, run: RunEntity): Promise<InboxEntry | null> {
    if (!runAccess(user, run).decide) return null;
    return (await this.entries(user, [run]))[0] ?? null;
  }

  private async entries(user: AuthUser, runs: readonly RunEntity[]): Promise<InboxEntry[]> {
    const configurations = await this.configurations.getByIds([
      ...new Set(runs.map((r) => r.configurationId)),
    ]);
    return runs.map((run) => {
      const access = runAccess(user, run);
      const fourEyes = configurations.get(run.configurationId)?.requireSecondApprover === true;
      return {
        run,
        detailVisible: access.detail,
        mayApprove: !(fourEyes && run.ownerId === user.id),
        decidableHere: run.processPin === null,
      };
    });
  }
}
