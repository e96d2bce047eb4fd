import { DEMO_CONFIGURATIONS } from '../../../demo/demo-data';
import type { OptionsProblem } from '../../../agent';
import { Refusal } from '../../../common/refusal';
import { assertJsonSize, MAX_JSON_INPUT_BYTES, validateProviderOptions } from './provider-options.policy';

function refusalOf(fn: () => unknown): Refusal {
  try {
    fn();
  } catch (e) {
    if (e instanceof Refusal) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

// why: the openai options are checked against the provider access settings too.
const ACCESS = { keyEnvPrefix: 'CS_PROVIDER_KEY_', keyEnvNames: ['OPENAI_API_KEY'], baseUrls: [] };
const validate = (provider: string, options: unknown) => validateProviderOptions(provider, options, ACCESS);

const problemsOf = (r: Refusal): OptionsProblem[] => (r.details.problems ?? []) as OptionsProblem[];

describe('validateProviderOptions', () => {
  describe('scripted', () => {
    it('accepts the demo script shapes and returns the options unchanged', () => {
      const options = {
        rounds: [
          { toolCalls: [{ name: 'pages_read', arguments: {} }] },
          { text: 'done', chunks: 5, chunkDelayMs: 20, delayMs: 0 },
        ],
      };
      expect(validate('scripted', options)).toBe(options);
      expect(validate('scripted', { rounds: [] })).toEqual({ rounds: [] });
    });

    it.each(DEMO_CONFIGURATIONS.map((c) => [c.identifier, c.rounds] as const))(
      'accepts the script of the demo configuration %s',
      (_identifier, rounds) => {
        expect(() => validate('scripted', { rounds })).not.toThrow();
      },
    );

    it('refuses missing options or missing rounds', () => {
      expect(problemsOf(refusalOf(() => validate('scripted', null)))).toEqual([
        { path: '/rounds', message: 'is required' },
      ]);
      expect(refusalOf(() => validate('scripted', { rounds: 'x' })).code).toBe('BAD_USER_INPUT');
    });

    it('reports every failing path of malformed rounds', () => {
      const r = refusalOf(() =>
        validate('scripted', {
          rounds: [
            { text: 3 },
            { chunks: 0, delayMs: -1, chunkDelayMs: 'slow' },
            { chunks: 1.5 },
            { toolCalls: [{ name: 'x' }, { name: '', arguments: [] }, { arguments: {} }] },
            { toolcalls: [] },
            'not a round',
          ],
        }),
      );
      expect(r.code).toBe('BAD_USER_INPUT');
      expect(r.details.field).toBe('providerOptions');
      const paths = problemsOf(r).map((p) => p.path);
      expect(paths).toEqual(
        expect.arrayContaining([
          '/rounds/0/text',
          '/rounds/1/chunks',
          '/rounds/1/delayMs',
          '/rounds/1/chunkDelayMs',
          '/rounds/2/chunks',
          '/rounds/3/toolCalls/0/arguments',
          '/rounds/3/toolCalls/1/name',
          '/rounds/3/toolCalls/1/arguments',
          '/rounds/3/toolCalls/2/name',
          '/rounds/4/toolcalls',
          '/rounds/5',
        ]),
      );
      expect(r.message).toContain('/rounds/1/chunks');
    });

    it('refuses unknown top-level keys', () => {
      expect(problemsOf(refusalOf(() => validate('scripted', { rounds: [], x: 1 })))).toEqual([
        { path: '/x', message: 'is not allowed here' },
      ]);
    });
  });

  describe('openai', () => {
    it('accepts a base URL with an environment variable name and a temperature', () => {
      const options = { baseUrl: 'http://127.0.0.1:11434/v1', apiKeyEnv: 'OPENAI_API_KEY', temperature: 0.2 };
      expect(validate('openai', options)).toBe(options);
      expect(validate('openai', { baseUrl: 'https://api.openai.com/v1' })).toBeDefined();
    });

    it.each([
      [{}, '/baseUrl'],
      [{ baseUrl: 'not a url' }, '/baseUrl'],
      [{ baseUrl: 'ftp://example.com' }, '/baseUrl'],
      [{ baseUrl: 'https://x.test', apiKeyEnv: 'sk-proj-abcdef0123456789' }, '/apiKeyEnv'],
      [{ baseUrl: 'https://x.test', apiKeyEnv: 'STATE_ENCRYPTION_KEY' }, '/apiKeyEnv'],
      [{ baseUrl: 'https://x.test', apiKeyEnv: 'HOME' }, '/apiKeyEnv'],
      [{ baseUrl: 'https://x.test', apiKeyEnv: 'CS_PROVIDER_KEY_' }, '/apiKeyEnv'],
      [{ baseUrl: 'https://x.test', temperature: 'warm' }, '/temperature'],
      [{ baseUrl: 'https://x.test', apiKey: 'sk-abc' }, '/apiKey'],
    ])('refuses %j at %s', (options, path) => {
      const r = refusalOf(() => validate('openai', options));
      expect(r.code).toBe('BAD_USER_INPUT');
      expect(problemsOf(r).map((p) => p.path)).toContain(path);
    });

    it('admits only base URLs under the allowed list when one is set', () => {
      const access = { ...ACCESS, baseUrls: ['https://llm.internal.test/v1'] };
      const check = (baseUrl: string) => () => validateProviderOptions('openai', { baseUrl }, access);
      expect(check('https://llm.internal.test/v1')).not.toThrow();
      expect(check('https://llm.internal.test/v1/')).not.toThrow();
      for (const url of [
        'https://llm.internal.test/v10',
        'http://llm.internal.test/v1',
        'https://llm.internal.test.evil.test/v1',
        'https://user:pw@llm.internal.test/v1',
      ]) {
        expect(problemsOf(refusalOf(check(url))).map((p) => p.path)).toEqual(['/baseUrl']);
      }
    });

    it('never echoes a key-like value in the refusal', () => {
      const r = refusalOf(() => validate('openai', { baseUrl: 'https://x.test', apiKey: 'sk-secret' }));
      expect(JSON.stringify({ m: r.message, d: r.details })).not.toContain('sk-secret');
    });
  });

  it('refuses an unknown provider', () => {
    const r = refusalOf(() => validate('anthropic-direct', {}));
    expect(r.code).toBe('BAD_USER_INPUT');
    expect(r.details.field).toBe('provider');
  });

  it('refuses options above 64 KB serialised before looking at their shape', () => {
    const big = { rounds: [{ text: 'x'.repeat(MAX_JSON_INPUT_BYTES) }] };
    const r = refusalOf(() => validate('scripted', big));
    expect(r.code).toBe('BAD_USER_INPUT');
    expect(r.details).toMatchObject({ field: 'providerOptions', limit: MAX_JSON_INPUT_BYTES });
  });
});

describe('assertJsonSize', () => {
  it('accepts exactly the limit and refuses one byte more (UTF-8 bytes, not characters)', () => {
    const at = 'x'.repeat(MAX_JSON_INPUT_BYTES - 2); // two quotes
    expect(() => assertJsonSize(at, 'v')).not.toThrow();
    expect(refusalOf(() => assertJsonSize(`${at}x`, 'v')).details).toMatchObject({
      bytes: MAX_JSON_INPUT_BYTES + 1,
    });
    expect(refusalOf(() => assertJsonSize('é'.repeat(40_000), 'v')).code).toBe('BAD_USER_INPUT');
  });
});
