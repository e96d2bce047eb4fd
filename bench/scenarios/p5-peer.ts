// P5's peer (full run only): the same workload on LangGraph.js with its PostgreSQL
// checkpointer, interleaved with our runs, as ms per round beside ours.
import {
  LANGGRAPH_VERSIONS,
  LangGraphPeer,
  type LangGraphSample,
  type RoundSizes,
} from '../support/langgraph-peer';
import { checkAll, type Check, type Figure } from '../support/report';
import { ratio, summarize } from '../support/stats';
import { measureRun, type Rig, type RunSample } from './p5-measure';

/** Target at the longest run: ours at most a tenth of LangGraph's time per round. */
const MAX_OURS_OVER_LANGGRAPH = 0.1;

export type PeerSample = LangGraphSample & { readonly rep: number };

/**
 * The sizes of one round as our runs store them: the LLM step (the model's tool call) and the
 * TOOL step (the tool's result), from a run at privacy FULL (content stored), in characters
 * of their JSON payload.
 */
async function roundSizes(rig: Rig, runId: string): Promise<RoundSizes> {
  const r = await rig.observer.query<{ kind: string; chars: number }>(
    `SELECT kind, round(avg(length(payload::text)))::int AS chars FROM run_step
      WHERE run_id = $1 AND kind IN ('LLM', 'TOOL') GROUP BY kind`,
    [runId],
  );
  const of = (kind: string) => r.rows.find((x) => x.kind === kind)?.chars ?? 0;
  return { model: of('LLM'), tool: of('TOOL') };
}

/** Opens the peer, its message sizes taken from one of our 10-round runs at privacy FULL. */
export async function openPeer(rig: Rig): Promise<{ peer: LangGraphPeer; sizes: RoundSizes }> {
  const sample = await measureRun(rig, { rounds: 10, privacy: 'FULL' }, 0);
  const sizes = await roundSizes(rig, sample.runId);
  const peer = await LangGraphPeer.open(rig.db.url, sizes);
  await peer.run(10); // warm-up: JIT, the saver's statements
  return { peer, sizes };
}

const ourMsPerRound = (r: RunSample): number => r.serverMs / r.rounds;

export function peerFigures(
  sizes: readonly number[],
  runs: readonly RunSample[],
  peer: readonly PeerSample[],
): Figure[] {
  if (peer.length === 0) return [];
  const longest = Math.max(...sizes);
  return sizes.map((rounds) => {
    const theirs = peer.filter((p) => p.rounds === rounds);
    const ours = runs.filter((r) => r.privacy === 'METADATA' && r.rounds === rounds);
    const ratios = theirs.map((p) => {
      const mine = ours.find((r) => r.rep === p.rep);
      return mine ? ratio(ourMsPerRound(mine), p.msPerRound) : NaN;
    });
    const r = summarize(ratios);
    return {
      name: `ms per round, ${rounds} rounds: ours over LangGraph.js ${LANGGRAPH_VERSIONS.langgraph} + PostgresSaver (durability sync)`,
      unit: 'ms',
      ours: summarize(ours.filter((o) => theirs.some((p) => p.rep === o.rep)).map(ourMsPerRound)),
      baseline: {
        label: 'LangGraph.js, model node + tool node per round',
        value: summarize(theirs.map((p) => p.msPerRound)),
      },
      ratio: r,
      ...(rounds === longest
        ? { target: { text: `<= ${MAX_OURS_OVER_LANGGRAPH}x`, met: r.median <= MAX_OURS_OVER_LANGGRAPH } }
        : {}),
    };
  });
}

export function peerChecks(peer: readonly PeerSample[]): Check[] {
  if (peer.length === 0) return [];
  return [
    checkAll(
      'LangGraph peer: every run answered after all its rounds, every superstep checkpointed',
      peer.length,
      peer.flatMap((p) => p.problems),
    ),
  ];
}

export function peerDetails(sizes: RoundSizes | null, peer: readonly PeerSample[]) {
  if (!sizes) return 'not run (--quick)';
  return {
    versions: LANGGRAPH_VERSIONS,
    durability: 'sync',
    checkpointer: 'PostgresSaver, schema langgraph_peer of the bench database',
    messageChars: sizes,
    runs: peer.map(({ rep, rounds, ms, msPerRound, checkpoints }) => ({
      rep,
      rounds,
      ms,
      msPerRound,
      checkpoints,
    })),
  };
}
