import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collect, startRun, waitForRest } from '../support/runs';
import { useTestApp } from '../support/suite';
import type { RunEvent } from '../support/generated/schema';

const KEY = 'sk-test-secret';
const RUN_EVENTS = `subscription Trace($runId: ID!) { runEvents(runId: $runId) {
  kind outcome finalContent error step { sequence kind }
} }`;

interface TraceEvent {
  runEvents: Pick<RunEvent, 'kind' | 'outcome' | 'finalContent' | 'error'>;
}

interface Seen {
  readonly authorization: string | undefined;
  readonly url: string;
  readonly body: Record<string, any>;
}

type Handler = (res: ServerResponse) => void;

/** A local OpenAI chat-completions server: each request is answered by the next handler. */
class FakeOpenAi {
  readonly seen: Seen[] = [];
  readonly next: Handler[] = [];
  private server!: Server;
  baseUrl = '';

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        this.seen.push({
          authorization: req.headers.authorization,
          url: req.url ?? '',
          body: JSON.parse(raw || '{}'),
        });
        const handler = this.next.shift();
        if (handler) handler(res);
        else res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-e2e',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'test-model',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** Streams the chunks as server-sent events, a few milliseconds apart. */
function sse(chunks: readonly unknown[]): Handler {
  return (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const queue = [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'];
    const pump = (): void => {
      const part = queue.shift();
      if (part === undefined) return void res.end();
      res.write(part);
      setTimeout(pump, 5);
    };
    pump();
  };
}

const usage = {
  ...chunk({}),
  choices: [],
  usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
};

/** Round 1: a `pages_read` call streamed in pieces (name once, arguments split). */
const toolCallRound = (pageId: string): Handler =>
  sse([
    chunk({ role: 'assistant', content: null }),
    chunk({
      tool_calls: [
        { index: 0, id: 'call_e2e_1', type: 'function', function: { name: 'pages_read', arguments: '' } },
      ],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"pageId":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: `${pageId}}` } }] }),
    chunk({}, 'tool_calls'),
    usage,
  ]);

/** Round 2: the answer in text deltas. */
const answerRound = sse([
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'The About page ' }),
  chunk({ content: 'reads well.' }),
  chunk({}, 'stop'),
  usage,
]);

function failWith(status: number, message: string): Handler {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null } }));
  };
}

describe('the openai provider end to end against a local chat-completions server', () => {
  let llm: FakeOpenAi;
  beforeAll(async () => {
    llm = new FakeOpenAi();
    await llm.start();
  });
  // why: AppConfig.secret reads the environment handed to loadConfig, never process.env.
  const { t, ids } = useTestApp({ CS_PROVIDER_KEY_TEST: KEY });
  afterAll(async () => {
    await llm?.stop();
  });
  let configurationId: string;

  /** Saves an openai configuration against the local server through the API; its id. */
  async function saveConfiguration(
    identifier: string,
    options: Record<string, unknown> = {},
  ): Promise<string> {
    const res = await t.gql<{ upsertConfiguration: { id: string } }>(
      `mutation($input: ConfigurationInput!) { upsertConfiguration(input: $input) { id } }`,
      {
        input: {
          identifier,
          name: `OpenAI-compatible (local test server, ${identifier})`,
          provider: 'openai',
          model: 'test-model',
          providerOptions: { baseUrl: llm.baseUrl, apiKeyEnv: 'CS_PROVIDER_KEY_TEST', ...options },
        },
      },
    );
    if (!res.data) throw new Error(JSON.stringify(res.errors));
    return res.data.upsertConfiguration.id;
  }

  beforeAll(async () => {
    configurationId = await saveConfiguration('openai-local');
  });

  beforeEach(() => {
    llm.seen.length = 0;
    llm.next.length = 0;
  });

  async function trace(runId: string): Promise<TraceEvent['runEvents'][]> {
    const c = collect<TraceEvent>(t.ws('admin'), RUN_EVENTS, { runId });
    await c.done;
    expect(c.errors).toEqual([]);
    return c.events.map((e) => e.runEvents);
  }

  it('runs a streamed tool call, then a streamed answer, to COMPLETED', async () => {
    const pageId = ids.pages.About!;
    llm.next.push(toolCallRound(pageId), answerRound);
    const run = await startRun(t, 'alice', {
      configurationId,
      prompt: 'Review the About page',
      subjectPageId: pageId,
    });
    expect(await waitForRest(t, run.id)).toBe('COMPLETED');

    const events = await trace(run.id);
    const terminal = events.at(-1)!;
    expect(terminal).toMatchObject({
      kind: 'TERMINAL',
      outcome: 'DONE',
      finalContent: 'The About page reads well.',
    });
    expect(events.filter((e) => e.kind === 'STEP')).toHaveLength(6);

    expect(llm.seen).toHaveLength(2);
    const [first, second] = llm.seen as [Seen, Seen];
    for (const s of llm.seen) {
      expect(s.url).toBe('/v1/chat/completions');
      expect(s.authorization).toBe(`Bearer ${KEY}`);
      expect(s.body).toMatchObject({
        model: 'test-model',
        stream: true,
        stream_options: { include_usage: true },
      });
    }
    const toolNames = (first.body.tools as Array<{ type: string; function: { name: string } }>).map(
      (x) => x.function.name,
    );
    expect(toolNames).toEqual(
      expect.arrayContaining(['pages_read', 'pages_search', 'pages_update', 'ask_user']),
    );
    expect(first.body.messages.at(-1)).toEqual({ role: 'user', content: 'Review the About page' });
    const messages = second.body.messages as Array<Record<string, any>>;
    const assistant = messages.find((m) => m.role === 'assistant');
    expect(assistant?.tool_calls).toEqual([
      {
        id: 'call_e2e_1',
        type: 'function',
        function: { name: 'pages_read', arguments: `{"pageId":${pageId}}` },
      },
    ]);
    const tool = messages.find((m) => m.role === 'tool');
    expect(tool).toMatchObject({ role: 'tool', tool_call_id: 'call_e2e_1' });
    expect(tool!.content).toContain('About');

    const [row] = await t.dataSource.query(
      'SELECT status, termination_reason, iterations, prompt_tokens, completion_tokens, answer, step_count FROM run WHERE id = $1',
      [run.id],
    );
    expect(row).toEqual({
      status: 'COMPLETED',
      termination_reason: 'COMPLETED',
      iterations: 2,
      prompt_tokens: 80,
      completion_tokens: 18,
      answer: 'The About page reads well.',
      step_count: 6,
    });
    const steps: Array<{ kind: string }> = await t.dataSource.query(
      'SELECT kind FROM run_step WHERE run_id = $1 ORDER BY sequence',
      [run.id],
    );
    expect(steps.map((s) => s.kind)).toEqual(['CONTEXT', 'REQUEST', 'LLM', 'TOOL', 'REQUEST', 'LLM']);
    // the final chunk's usage of each streamed answer, summed over the run
    const read = await t.gql<{ run: { usage: Record<string, number> } }>(
      `query($id: ID!) { run(id: $id) { usage { promptTokens completionTokens totalTokens modelCalls } } }`,
      { id: run.id },
      'alice',
    );
    expect(read.data!.run.usage).toEqual({
      promptTokens: 80,
      completionTokens: 18,
      totalTokens: 98,
      modelCalls: 2,
    });
  });

  it.each([
    [401, `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com`],
    [500, `upstream exploded while using key ${KEY}`],
  ])('fails the run PROVIDER_FAILED on HTTP %i with a sanitised message', async (status, message) => {
    llm.next.push(failWith(status, message));
    const run = await startRun(t, 'alice', { configurationId, prompt: 'Say hi' });
    expect(await waitForRest(t, run.id)).toBe('FAILED');
    expect(llm.seen).toHaveLength(1);

    const [row] = await t.dataSource.query(
      'SELECT termination_reason, error_message, checkpoint, answer FROM run WHERE id = $1',
      [run.id],
    );
    expect(row.termination_reason).toBe('PROVIDER_FAILED');
    expect(row.error_message).toContain(`HTTP ${status}`);
    expect(row.error_message).not.toContain(KEY);
    expect(row.error_message).toMatch(new RegExp(`^Provider error \\(HTTP ${status}\\): .*\\[REDACTED\\]`));
    expect(row.checkpoint).toBeNull();
    expect(row.answer).toBeNull();

    const terminal = (await trace(run.id)).at(-1)!;
    expect(terminal).toMatchObject({ kind: 'TERMINAL', outcome: 'ERROR' });
    expect(terminal.error).toBe(row.error_message);

    const stored: unknown[] = await t.dataSource.query('SELECT payload FROM run_step WHERE run_id = $1', [
      run.id,
    ]);
    expect(JSON.stringify(stored)).not.toContain(KEY);
  });

  it('runs a configuration saved with a silence timeout of a quarter hour: a run checks what the upsert accepted', async () => {
    // why: the upsert and the provider a run builds check one schema; they once had their own,
    // and a timeout the upsert took (up to an hour) failed every run of it (at most ten minutes).
    const patient = await saveConfiguration('openai-patient', { timeoutMs: 900_000 });
    llm.next.push(answerRound);
    const run = await startRun(t, 'alice', { configurationId: patient, prompt: 'Say hi' });
    expect(await waitForRest(t, run.id)).toBe('COMPLETED');
    expect(llm.seen).toHaveLength(1);
    const [row] = await t.dataSource.query('SELECT answer, error_message FROM run WHERE id = $1', [run.id]);
    expect(row).toEqual({ answer: 'The About page reads well.', error_message: null });
  });
});
