import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { installedVersion } from './env';
import { msSince } from './stats';

export const LANGGRAPH_VERSIONS = {
  langgraph: installedVersion('@langchain/langgraph'),
  checkpointPostgres: installedVersion('@langchain/langgraph-checkpoint-postgres'),
};

/** The schema of the peer's checkpointer in the bench database (its tables only). */
const SCHEMA = 'langgraph_peer';

/** Sizes of what one round exchanges, taken from our own stored steps (P5 measures them). */
export interface RoundSizes {
  /** Characters of the model's message (our LLM step). */
  readonly model: number;
  /** Characters of the tool's result (our TOOL step). */
  readonly tool: number;
}

/** One LangGraph run of `rounds` tool rounds and a final answer. */
export interface LangGraphSample {
  readonly rounds: number;
  readonly ms: number;
  readonly msPerRound: number;
  /** Checkpoints the saver holds for the run's thread (one per superstep). */
  readonly checkpoints: number;
  readonly problems: string[];
}

/**
 * A peer baseline for P5: a LangGraph.js graph with one model node (deterministic, no
 * network: a tool call to `pages_read` for `rounds` rounds, then a final text) and one tool
 * node, checkpointed by `PostgresSaver` on the same server (schema `langgraph_peer` of the
 * bench database), with `durability: 'sync'`: every superstep is saved before the next
 * starts, as each of our steps commits before the next (LangGraph's default, `async`,
 * overlaps the save with the next step).
 */
export class LangGraphPeer {
  private constructor(
    private readonly pool: Pool,
    private readonly saver: PostgresSaver,
    private readonly sizes: RoundSizes,
  ) {}

  static async open(url: string, sizes: RoundSizes): Promise<LangGraphPeer> {
    const pool = new Pool({ connectionString: url, application_name: 'countersign-bench-langgraph', max: 4 });
    // why: an idle connection ended by the server (the database dropped at the end) must not
    // crash the bench with an unhandled 'error' event.
    pool.on('error', () => undefined);
    const saver = new PostgresSaver(pool, undefined, { schema: SCHEMA });
    await saver.setup();
    return new LangGraphPeer(pool, saver, sizes);
  }

  private graph(rounds: number) {
    const modelText = 'm'.repeat(this.sizes.model);
    const toolText = 't'.repeat(this.sizes.tool);
    return new StateGraph(MessagesAnnotation)
      .addNode('model', (state) => {
        // why: the state holds the prompt, then a model message and a tool result per round.
        const done = (state.messages.length - 1) / 2;
        if (done >= rounds) return { messages: [new AIMessage('Done reading.')] };
        const id = `call_${done + 1}`;
        return {
          messages: [
            new AIMessage({ content: modelText, tool_calls: [{ id, name: 'pages_read', args: {} }] }),
          ],
        };
      })
      .addNode('tools', (state) => {
        const last = state.messages[state.messages.length - 1] as AIMessage;
        const call = last.tool_calls![0]!;
        return {
          messages: [new ToolMessage({ content: toolText, tool_call_id: call.id!, name: call.name })],
        };
      })
      .addEdge(START, 'model')
      .addConditionalEdges('model', (state) => {
        const last = state.messages[state.messages.length - 1] as AIMessage;
        return last.tool_calls?.length ? 'tools' : END;
      })
      .addEdge('tools', 'model')
      .compile({ checkpointer: this.saver });
  }

  async run(rounds: number): Promise<LangGraphSample> {
    const graph = this.graph(rounds);
    const threadId = randomUUID();
    const mark = process.hrtime.bigint();
    const out = await graph.invoke(
      { messages: [new HumanMessage('Read the page.')] },
      { configurable: { thread_id: threadId }, recursionLimit: 2 * rounds + 10, durability: 'sync' },
    );
    const ms = msSince(mark);
    const r = await this.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${SCHEMA}.checkpoints WHERE thread_id = $1`,
      [threadId],
    );
    const checkpoints = r.rows[0]!.n;
    const problems: string[] = [];
    if (out.messages.length !== 2 * rounds + 2) {
      problems.push(`${rounds} rounds: ${out.messages.length} messages, expected ${2 * rounds + 2}`);
    }
    if (checkpoints < 2 * rounds + 1) {
      problems.push(`${rounds} rounds: ${checkpoints} checkpoints, expected at least ${2 * rounds + 1}`);
    }
    return { rounds, ms, msPerRound: ms / rounds, checkpoints, problems };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
