import { PAGE_TEXT_LIMITS } from '../../common/page-text';
import { ABOUT, HOME } from '../testing/fixtures';
import { InMemoryContent } from '../testing/in-memory-content';
import { BUILTIN_TOOLS, createDefaultToolRegistry } from './builtins';
import type { PageChange } from './content-port';
import { pagesUpdateTool, previewLines } from './pages-update';
import { ToolRegistrationError, ToolRegistry } from './registry';
import { declaredValues, previewCall, runTool } from './run-tool';
import type { ToolContext, ToolDefinition } from './tool';

const content = new InMemoryContent([HOME, ABOUT], {
  editable: (owner, pageId) => owner.id !== 9 || pageId !== 2,
});
const ctx: ToolContext = {
  runId: 'r',
  owner: { id: 2 },
  workspaceId: 5,
  subject: { pageId: 1, languageId: 0 },
  content,
};
const tools = createDefaultToolRegistry().select();
const call = (name: string, args: Record<string, unknown>) => ({ id: 'c1', name, arguments: args });

describe('ToolRegistry', () => {
  const base: ToolDefinition = {
    name: 'x',
    description: 'x',
    parameters: { type: 'object' },
    writes: false,
    execute: () => Promise.resolve({ ok: true, output: null }),
  };

  it('refuses a tool that both writes and takes input', () => {
    const both: ToolDefinition = {
      ...base,
      writes: true,
      preview: () => Promise.resolve({ ok: true, value: [] }),
      input: { schema: () => ({}), question: () => null },
    };
    expect(() => new ToolRegistry().register(both)).toThrow(ToolRegistrationError);
    expect(() => new ToolRegistry().register(both)).toThrow(/both write/);
  });

  it('refuses a write without a declared effect, and an effect on a tool that does not write', () => {
    const preview = () => Promise.resolve({ ok: true as const, value: [] });
    expect(() => new ToolRegistry().register({ ...base, writes: true, preview })).toThrow(
      /must declare its effect/,
    );
    expect(() =>
      new ToolRegistry().register({ ...base, writes: true, preview, effect: 'maybe' as never }),
    ).toThrow(/must declare its effect/);
    expect(() => new ToolRegistry().register({ ...base, effect: 'external' })).toThrow(
      /only a tool that writes/,
    );
    for (const effect of ['transactional', 'external'] as const) {
      expect(new ToolRegistry().register({ ...base, writes: true, preview, effect }).names()).toEqual(['x']);
    }
  });

  it('declares pages_update transactional: its write commits with the run’s applied mark', () => {
    expect(BUILTIN_TOOLS.filter((t) => t.writes).map((t) => [t.name, t.effect])).toEqual([
      ['pages_update', 'transactional'],
    ]);
  });

  it('refuses a write without preview, a duplicate, a bad name and a schema that does not compile', () => {
    expect(() => new ToolRegistry().register({ ...base, writes: true })).toThrow(/needs a preview/);
    expect(() => new ToolRegistry().register(base).register(base)).toThrow(/already registered/);
    expect(() => new ToolRegistry().register({ ...base, name: 'a b' })).toThrow(/name/);
    expect(() => new ToolRegistry().register({ ...base, parameters: { type: 'nope' } })).toThrow(
      /does not compile/,
    );
  });

  it('narrows to the enabled tools', () => {
    const set = createDefaultToolRegistry().select(['pages_read', 'nope']);
    expect(set.names()).toEqual(['pages_read']);
    expect(set.specs()[0]).toMatchObject({ name: 'pages_read', parameters: { type: 'object' } });
    expect(set.get('pages_update')).toBeUndefined();
  });
});

describe('pages_read / pages_search', () => {
  it('defaults to the subject page and language, and accepts numeric strings', async () => {
    expect(await runTool(tools, call('pages_read', {}), ctx)).toMatchObject({
      ok: true,
      output: { pageId: 1, languageId: 0, workspaceId: 5, title: 'Home', body: 'Welcome to the Demo site.' },
    });
    expect(await runTool(tools, call('pages_read', { pageId: '2' }), ctx)).toMatchObject({
      ok: true,
      output: { title: 'About' },
    });
  });

  it('turns invalid arguments and refusals into error results', async () => {
    expect(await runTool(tools, call('pages_read', { pageId: 'two' }), ctx)).toEqual({
      ok: false,
      error: 'Invalid arguments: /pageId must be integer',
    });
    expect(await runTool(tools, call('pages_read', { pageId: 1, extra: 1 }), ctx)).toMatchObject({
      ok: false,
    });
    expect(await runTool(tools, call('pages_read', { pageId: 77 }), ctx)).toEqual({
      ok: false,
      error: 'Page 77 (language 0) not found',
    });
  });

  it('searches', async () => {
    expect(await runTool(tools, call('pages_search', { query: 'abo' }), ctx)).toEqual({
      ok: true,
      output: { hits: [{ pageId: 2, title: 'About', slug: '/about' }] },
    });
    expect(await runTool(tools, call('pages_search', {}), ctx)).toMatchObject({ ok: false });
  });
});

describe('pages_update', () => {
  it('previews one line per changed field, old -> new', async () => {
    const lines = await previewCall(
      tools,
      call('pages_update', { title: 'Home', seoTitle: 'Better', body: 'New body' }),
      ctx,
    );
    expect(lines).toEqual([
      'body: "Welcome to the Demo site." -> "New body"',
      'seoTitle: "Demo: home" -> "Better"',
    ]);
    expect(await previewCall(tools, call('pages_update', { seoDescription: 'Hi' }), ctx)).toEqual([
      'seoDescription: (empty) -> "Hi"',
    ]);
    expect(await previewCall(tools, call('pages_update', { title: 'Home' }), ctx)).toEqual(['no change']);
  });

  it('cuts long values but still changes the line when text past the cut changes', () => {
    const at = { pageId: 1, languageId: 0, workspaceId: 0 };
    const current = { title: 'T', body: `${'a'.repeat(300)}1`, seoTitle: null, seoDescription: null };
    const change: PageChange = { ...at, fields: { body: 'short' } };
    const one = previewLines(current, change);
    const two = previewLines({ ...current, body: `${'a'.repeat(300)}2` }, change);
    expect(one[0]).toMatch(/^body: "a{200}"… \(301 chars, #[0-9a-f]{12}\) -> "short"$/);
    expect(two[0]).not.toBe(one[0]);
  });

  it('previews a refusal instead of failing', async () => {
    const intern = { ...ctx, owner: { id: 9 } };
    expect(await previewCall(tools, call('pages_update', { pageId: 2, title: 'X' }), intern)).toEqual([
      'Cannot be carried out: You may not edit page 2 in language 0',
    ]);
    expect(await previewCall(tools, call('pages_update', {}), ctx)).toEqual([
      expect.stringMatching(/^Invalid arguments: .*must have required property 'title'/),
    ]);
  });

  it('writes in the run workspace and names the written record; a refusal is an error result', async () => {
    const local = new InMemoryContent([HOME, ABOUT], { editable: (_o, pageId) => pageId === 1 });
    const c = { ...ctx, content: local };
    expect(await runTool(tools, call('pages_update', { seoTitle: 'S' }), c)).toEqual({
      ok: true,
      output: { updated: true, fields: ['seoTitle'] },
      written: { table: 'page_text', id: '1:0:5' },
    });
    expect(local.applied).toEqual([{ pageId: 1, languageId: 0, workspaceId: 5, fields: { seoTitle: 'S' } }]);
    expect(await runTool(tools, call('pages_update', { pageId: 2, seoTitle: 'S' }), c)).toEqual({
      ok: false,
      error: 'You may not edit page 2 in language 0',
    });
    expect(local.applied).toHaveLength(1);
  });

  it('declares a write', () => {
    expect(pagesUpdateTool.writes).toBe(true);
  });

  it("tells the model the content module's limits, in characters: 500 emoji pass, 501 do not", async () => {
    expect(await previewCall(tools, call('pages_update', { seoTitle: '🚀'.repeat(500) }), ctx)).toEqual([
      // cut at 200 characters, counted as characters: no emoji is split, none counted twice
      expect.stringMatching(/^seoTitle: "Demo: home" -> "(🚀){200}"… \(500 chars, #[0-9a-f]{12}\)$/u),
    ]);
    for (const [field, limit] of Object.entries(PAGE_TEXT_LIMITS)) {
      const tooLong = field === 'body' ? 'x'.repeat(limit + 1) : '🚀'.repeat(limit + 1);
      expect(await previewCall(tools, call('pages_update', { [field]: tooLong }), ctx)).toEqual([
        expect.stringMatching(
          new RegExp(`^Invalid arguments: .*${field}.*must NOT have more than ${limit} characters`),
        ),
      ]);
    }
  });
});

describe('ask_user', () => {
  const schema = { type: 'object', properties: { tone: { type: 'string', enum: ['formal', 'casual'] } } };

  it('needs an object schema that compiles', () => {
    const ok = tools.prepare('ask_user', { question: 'Tone?', schema }, ctx);
    expect(ok?.check.ok).toBe(true);
    const notObject = tools.prepare(
      'ask_user',
      { question: 'Tone?', schema: { type: 'string', properties: {} } },
      ctx,
    );
    expect(notObject?.check.ok).toBe(false);
    const broken = tools.prepare(
      'ask_user',
      { question: 'Q', schema: { type: 'object', properties: { a: { type: 1 } } } },
      ctx,
    );
    expect(broken?.check).toMatchObject({
      ok: false,
      problems: [{ message: expect.stringMatching(/does not compile/) }],
    });
  });

  it('answers with the declared values only when answered, else an error result', async () => {
    const c = call('ask_user', { question: 'Tone?', schema });
    expect(await runTool(tools, c, ctx)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not put to the user/),
    });
    expect(await runTool(tools, c, ctx, { inputValues: { tone: 'formal', other: 1 } })).toEqual({
      ok: true,
      output: { tone: 'formal' },
    });
  });

  it('declaredValues never sets a prototype', () => {
    const values = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const schema = JSON.parse('{"properties": {"__proto__": {}, "a": {}}}') as Record<string, unknown>;
    const out = declaredValues(schema, values);
    expect(out).toEqual({ a: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('unknown tools', () => {
  it('are error results when executed and say so in their preview', async () => {
    expect(await runTool(tools, call('nope', {}), ctx)).toEqual({
      ok: false,
      error: 'Unknown tool "nope"; nothing was done.',
    });
    expect((await previewCall(tools, call('nope', {}), ctx))[0]).toMatch(/Unknown tool "nope"/);
  });
});
