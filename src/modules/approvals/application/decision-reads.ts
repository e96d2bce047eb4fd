import { Injectable } from '@nestjs/common';
import { BatchLoader } from '../../../common/batch-loader';
import { isUuid } from '../../../common/ids';
import { RequestContext } from '../../../platform/auth/request-context';
import { ConfigurationsService, type ConfigurationSettings } from '../../configurations';
import type { PageAccess } from '../../content';
import { RunsService, type RunWithJoined } from '../../runs';
import { DeciderGate } from './decider-gate';

/** A decision's one read: the run with its configuration's settings and the page it is about. */
export type DecisionRead = RunWithJoined<ConfigurationSettings, PageAccess>;

/**
 * The one read of a decision (the run, its configuration's settings and the page it is about, in
 * one statement), started as early as the request allows: `prefetch` once Apollo knows the
 * operation, `readFor` when `decide` needs it, taking up a prefetched read of the same request.
 */
@Injectable()
export class DecisionReads {
  // why: decisions arriving together (a storm of clicks on one run, an inbox decided in a row)
  // read their runs in one statement after the first one's; each is sent after its decisions
  // asked for it (keep = false), so every decision sees the claims committed before it arrived.
  private readonly reads = new BatchLoader<string, DecisionRead | null>(
    (id) => id,
    async (ids) => {
      const joins = {
        configuration: this.configurations.joinedById(),
        page: this.gate.joinedRunPageAccess(),
      };
      return new Map((await this.runs.findRunsWith(ids, joins)).map((read) => [read.run.id, read]));
    },
    null,
    { keep: false, firstAtOnce: true },
  );

  /** Reads started by `prefetch`, per request and run, until its `decide` takes them up. */
  private readonly prefetched = new WeakMap<RequestContext, Map<string, Promise<DecisionRead | null>>>();

  constructor(
    private readonly runs: RunsService,
    private readonly configurations: ConfigurationsService,
    private readonly gate: DeciderGate,
  ) {}

  /**
   * Starts the decision's one read for a request whose operation is known but not yet run
   * (OperationPrefetch): `readFor` on the same request and run takes it up. The read is sent
   * after the decision arrived, as `decide`'s own would be, so it sees every claim committed
   * before; it checks nothing and returns nothing to anyone.
   */
  prefetch(ctx: RequestContext, runId: unknown): boolean {
    if (!ctx.user || typeof runId !== 'string' || !isUuid(runId)) return false;
    const id = runId.toLowerCase();
    const read = this.reads.load(id);
    // why: a request refused before its resolver (access rule, rate limit) never awaits it.
    read.catch(() => undefined);
    const started = this.prefetched.get(ctx) ?? new Map<string, Promise<DecisionRead | null>>();
    started.set(id, read);
    this.prefetched.set(ctx, started);
    return true;
  }

  /** The run as `prefetch` started reading it for this request, or read now. */
  readFor(ctx: RequestContext, runId: string): Promise<DecisionRead | null> {
    const started = this.prefetched.get(ctx);
    const read = started?.get(runId);
    if (!read) return this.reads.load(runId);
    started!.delete(runId);
    return read;
  }
}
