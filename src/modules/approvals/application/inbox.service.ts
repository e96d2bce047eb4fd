import { Injectable } from '@nestjs/common';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { ConfigurationsService } from '../../configurations';
import { runAccess, RunsService, type RunView } from '../../runs';

/** One inbox entry: a waiting run the viewer may decide, and what they may do with it. */
export interface InboxEntry {
  readonly run: RunView;
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
    private readonly runs: RunsService,
    private readonly configurations: ConfigurationsService,
  ) {}

  async list(user: AuthUser, first: number, offset: number): Promise<InboxEntry[]> {
    const everyone = user.isAdmin || user.grants.has('AGENT_APPROVE');
    const runs = await this.runs.listWaiting(
      everyone ? null : user.id,
      Math.min(Math.max(first, 0), 200),
      Math.max(offset, 0),
    );
    return this.entries(user, runs);
  }

  /** The inbox entry of one run for this viewer, or null where they may not decide it. */
  async entryFor(user: AuthUser, run: RunView): Promise<InboxEntry | null> {
    if (!runAccess(user, run).decide) return null;
    return (await this.entries(user, [run]))[0] ?? null;
  }

  private async entries(user: AuthUser, runs: readonly RunView[]): Promise<InboxEntry[]> {
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
