import { createProvider, ProviderConfigError, providerConfigProblems } from './factory';
import { ProviderError } from './provider';
import { SCRIPT_ENDED, ScriptedProvider, splitEvenly } from './scripted';

const request = (callIndex: number) => ({
  messages: [{ role: 'user' as const, content: 'hello there' }],
  tools: [],
  callIndex,
});

describe('ScriptedProvider', () => {
  const provider = new ScriptedProvider({
    rounds: [
      {
        toolCalls: [
          { name: 'pages_read', arguments: {} },
          { name: 'pages_search', arguments: { query: 'x' } },
        ],
      },
      { text: 'I proposed a sharper SEO title for the page.', chunks: 5, chunkDelayMs: 5 },
      { error: 'boom sk-abcdefghijklmnopqrst' },
    ],
  });

  it('answers the n-th call with round n, with deterministic call ids and usage', async () => {
    const a = await provider.complete(request(1));
    const b = await provider.complete(request(1));
    expect(a.toolCalls).toEqual([
      { id: 'call_1_1', name: 'pages_read', arguments: {} },
      { id: 'call_1_2', name: 'pages_search', arguments: { query: 'x' } },
    ]);
    expect(a.finishReason).toBe('tool_calls');
    expect(a.usage).toEqual(b.usage);
    expect(a.usage.promptTokens).toBe(Math.ceil('hello there'.length / 4));
    expect(a.usage.totalTokens).toBe(a.usage.promptTokens + a.usage.completionTokens);
  });

  it('streams the text in `chunks` deltas `chunkDelayMs` apart', async () => {
    const deltas: number[] = [];
    const parts: string[] = [];
    const started = Date.now();
    const r = await provider.complete(request(2), {
      onDelta: (d) => {
        parts.push(d);
        deltas.push(Date.now() - started);
      },
    });
    expect(parts).toHaveLength(5);
    expect(parts.join('')).toBe(r.text);
    expect(r.finishReason).toBe('stop');
    expect(r.toolCalls).toEqual([]);
    expect((deltas[4] ?? 0) - (deltas[0] ?? 0)).toBeGreaterThanOrEqual(15);
  });

  it('answers "(script ended)" past the last round', async () => {
    const r = await provider.complete(request(9));
    expect(r).toMatchObject({ text: SCRIPT_ENDED, toolCalls: [], finishReason: 'stop' });
  });

  it('fails a round scripted to fail, with a sanitised message', async () => {
    const error = await provider.complete(request(3)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toBe('boom [REDACTED_TOKEN]');
  });

  it('gives each call its own copy of the scripted arguments', async () => {
    const r = await provider.complete(request(1));
    (r.toolCalls[1]?.arguments as Record<string, unknown>).query = 'changed';
    expect((await provider.complete(request(1))).toolCalls[1]?.arguments).toEqual({ query: 'x' });
  });

  it('reports the usage a round declares', async () => {
    const declared = new ScriptedProvider({
      rounds: [{ text: 'counted', usage: { inputTokens: 120, outputTokens: 30 } }],
    });
    const r = await declared.complete(request(1));
    expect(r.usage).toEqual({ promptTokens: 120, completionTokens: 30, totalTokens: 150 });
  });

  it('stops waiting when the signal aborts', async () => {
    const slow = new ScriptedProvider({ rounds: [{ text: 'late', delayMs: 10_000 }] });
    const abort = new AbortController();
    const pending = slow.complete(request(1), { signal: abort.signal });
    abort.abort();
    await expect(pending).rejects.toThrow(ProviderError);
  });
});

describe('splitEvenly', () => {
  it('splits into exactly n near-equal parts, fewer only for short text', () => {
    expect(splitEvenly('abcdefghij', 3)).toEqual(['abcd', 'efg', 'hij']);
    expect(splitEvenly('ab', 5)).toEqual(['a', 'b']);
    expect(splitEvenly('abc', 1)).toEqual(['abc']);
  });
});

describe('createProvider', () => {
  const secret = () => undefined;
  const access = { keyEnvPrefix: 'CS_PROVIDER_KEY_', keyEnvNames: [], baseUrls: [] };

  it('builds the scripted and openai providers', () => {
    expect(
      createProvider({ provider: 'scripted', model: 'x', providerOptions: { rounds: [] }, secret, access })
        .name,
    ).toBe('scripted');
    expect(
      createProvider({
        provider: 'openai',
        model: 'gpt',
        providerOptions: { baseUrl: 'http://127.0.0.1:1/v1' },
        secret,
        access,
      }).name,
    ).toBe('openai');
  });

  it('refuses unknown providers and bad options', () => {
    expect(() => createProvider({ provider: 'magic', model: 'x', secret, access })).toThrow(
      ProviderConfigError,
    );
    expect(providerConfigProblems('scripted', { rounds: [{ toolcalls: [] }] })).toHaveLength(1);
    expect(providerConfigProblems('scripted', { rounds: [{ chunks: 0 }] })[0]).toMatch(/chunks/);
    expect(providerConfigProblems('openai', { baseUrl: 'ftp://x' })[0]).toMatch(/baseUrl/);
    expect(providerConfigProblems('scripted', null)).toEqual([]);
    expect(
      providerConfigProblems('scripted', { rounds: [{ usage: { inputTokens: -1, outputTokens: 2 } }] })[0],
    ).toMatch(/inputTokens/);
    expect(providerConfigProblems('scripted', { rounds: [{ usage: { inputTokens: 1 } }] })).toHaveLength(1);
  });
});
