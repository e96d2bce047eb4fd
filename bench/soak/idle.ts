import type { BenchDatabase } from '../support/database';
import { RUN_PROGRESS, startWaitingRuns } from '../support/decisions';
import { GraphQLClient } from '../support/graphql';
import { checkAll, type Check } from '../support/report';
import { sleep } from '../support/stats';
import {
  closeAll,
  openConnections,
  type GqlWsConnection,
  type WsSubscription,
} from '../support/ws-subscriber';
import type { Member } from './cluster';
import type { SoakOptions } from './options';

/** Waiting runs nobody decides and idle subscriptions on them, held on the probe for the whole soak. */
export interface Idle {
  readonly runIds: string[];
  readonly subscriptions: WsSubscription[];
  /** Every idle subscription still open, without an error, after the soak. */
  check(): Check;
  close(): Promise<void>;
}

/**
 * The memory load of docs/benchmarks.md on the probe (api-1): `idleRuns` demo-editor
 * runs waiting for approval (started by alice through the API; the actors never touch them)
 * and `subscriptions` runProgress subscriptions on them (bob, one graphql-ws connection each),
 * each waiting for its snapshot before the chaos starts.
 */
export async function openIdle(
  probe: Member,
  db: BenchDatabase,
  configurationId: string,
  options: Pick<SoakOptions, 'idleRuns' | 'subscriptions'>,
): Promise<Idle> {
  const gql = new GraphQLClient(probe.httpUrl!, db.tokens.admin!);
  const input = { configurationId, prompt: 'idle (soak)' };
  const runs = await startWaitingRuns(gql.as(db.tokens.alice!), gql, db.url, input, options.idleRuns, 4);
  const connections: GqlWsConnection[] = await openConnections(
    probe.wsUrl!,
    options.subscriptions,
    () => db.tokens.bob!,
  );
  const snapshots: boolean[] = [];
  const subscriptions = connections.map((c, i) =>
    c.subscribe(RUN_PROGRESS, { runId: runs[i % runs.length]!.runId }, () => void (snapshots[i] = true)),
  );
  const deadline = Date.now() + 120_000;
  while (snapshots.filter(Boolean).length < subscriptions.length && Date.now() < deadline) await sleep(50);
  const missing = subscriptions.length - snapshots.filter(Boolean).length;
  if (missing > 0) throw new Error(`${missing} idle subscriptions got no snapshot in 120 s`);
  return {
    runIds: runs.map((r) => r.runId),
    subscriptions,
    check: () =>
      checkAll(
        `${subscriptions.length} idle subscriptions on api-1 open through the soak`,
        subscriptions.length,
        subscriptions.flatMap((s, i) =>
          s.ended() ? [`subscription ${i}: ended ${JSON.stringify(s.errors)}`] : [],
        ),
      ),
    close: () => closeAll(connections),
  };
}
