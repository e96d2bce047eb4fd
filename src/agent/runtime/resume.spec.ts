import { randomBytes } from 'node:crypto';
import { EDITOR_ROUNDS, QUESTION_ROUNDS } from '../../demo/demo-data';
import type { ScriptedRound } from '../providers/scripted';
import { fakePorts } from '../testing/fake-ports';
import { ABOUT, asSuspended, HOME, RecordingProvider, startInput } from '../testing/fixtures';
import { InMemoryContent } from '../testing/in-memory-content';
import { digestsEqual, turnDigest } from './digest';
import { DecisionMismatchError, InvalidInputError, LeaseLostError } from './errors';
import { validateInput } from './input';
import { runAgent } from './loop';
import type { PendingEffect } from './ports';
import { resumeAgent } from './resume';
import { decryptState, encryptState } from './state-cipher';
import { decisionStep } from './steps';
import type { SuspendedState } from './types';

const ctx = startInput();

/** Runs a script to its first pause; returns the content, the provider and the stored state. */
async function pausedRun(rounds: readonly ScriptedRound[], extra = {}) {
  const content = new InMemoryContent([HOME, ABOUT]);
  const provider = new RecordingProvider(rounds);
  const first = asSuspended(await runAgent(startInput(extra), fakePorts({ provider, content }).ports));
  const key = randomBytes(32);
  // why: what resumes is what storage gives back, so go through the cipher like the runs module.
  const state = decryptState(encryptState(first.state, key, 'run-1'), key, 'run-1');
  return { content, provider, first, state };
}

/** Counts the preview reads of the content port from now on. */
function spyOnPreviews(content: InMemoryContent): () => number {
  let reads = 0;
  const preview = content.previewUpdate.bind(content);
  content.previewUpdate = (owner, change) => {
    reads += 1;
    return preview(owner, change);
  };
  return () => reads;
}

const lastToolMessages = (provider: RecordingProvider) =>
  (provider.requests.at(-1)?.messages ?? []).filter((m) => m.role === 'tool');

describe('resumeAgent: approve', () => {
  it('executes the approved write inside a pending effect, then answers', async () => {
    const { content, provider, first, state } = await pausedRun(EDITOR_ROUNDS);
    const fake = fakePorts({ provider, content });
    const outcome = await resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'bob' }, fake.ports);

    expect(outcome).toMatchObject({
      kind: 'completed',
      answer: 'I proposed a sharper SEO title for the page.',
      providerCalls: 3,
    });
    expect(content.page(1, 0)?.seoTitle).toBe('A sharper SEO title');
    expect(content.applied).toHaveLength(1);
    expect(fake.stored.map((s) => s.kind)).toEqual(['TOOL', 'TOOL_WRITE', 'REQUEST', 'LLM']);
    expect(fake.stored[1]?.payload).toEqual({
      table: 'page_text',
      id: '1:0:0',
      callId: 'call_2_1',
      toolName: 'pages_update',
    });
    expect(fake.effects[0]).toEqual({
      callId: 'call_2_1',
      toolName: 'pages_update',
      arguments: { seoTitle: 'A sharper SEO title', pageId: 1, languageId: 0 },
      effect: 'transactional',
    });
    expect(fake.effects[1]).toBeNull();
    expect(fake.effects).toHaveLength(2);
    expect(fake.deltas).toHaveLength(5);
    expect(outcome.usage.totalTokens).toBeGreaterThan(first.usage.totalTokens);
    expect(outcome.iterations).toBe(3);
  });

  it('re-suspends with a new turn and digest when the page changed since the preview', async () => {
    const { content, provider, first, state } = await pausedRun(EDITOR_ROUNDS);
    content.edit(1, 0, { seoTitle: 'Edited meanwhile' });
    const fake = fakePorts({ provider, content });
    const again = asSuspended(
      await resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'bob' }, fake.ports),
    );

    expect(again.pending.turn).toBe(2);
    expect(again.pending.digest).not.toBe(first.pending.digest);
    expect(again.pending.digest).toBe(turnDigest(again.pending));
    expect(again.pending.calls[0]?.preview).toEqual([
      'seoTitle: "Edited meanwhile" -> "A sharper SEO title"',
    ]);
    expect(again.state.turn).toBe(2);
    expect(content.applied).toEqual([]);
    // why: a lone write checks its preview inside its own write: the effect was announced, the
    // write found the page changed and wrote nothing; the suspension's settle clears the effect.
    expect(fake.effects).toHaveLength(1);
    expect(fake.stored).toEqual([]);
    expect(provider.requests).toHaveLength(2);

    const done = await resumeAgent(
      ctx,
      again.state,
      { kind: 'approve', decidedBy: 'bob' },
      fakePorts({ provider, content }).ports,
    );
    expect(done.kind).toBe('completed');
    expect(content.page(1, 0)?.seoTitle).toBe('A sharper SEO title');
  });

  it('a lone approved write reads no preview of its own: the write checks the approved one', async () => {
    const { content, provider, state } = await pausedRun(EDITOR_ROUNDS);
    const previews = spyOnPreviews(content);
    const checked: boolean[] = [];
    const apply = content.applyUpdate.bind(content);
    content.applyUpdate = (owner, change, holds) =>
      apply(owner, change, holds && ((current) => (checked.push(holds(current)), checked.at(-1)!)));
    const outcome = await resumeAgent(
      ctx,
      state,
      { kind: 'approve', decidedBy: 'bob' },
      fakePorts({ provider, content }).ports,
    );
    expect(outcome.kind).toBe('completed');
    expect(previews()).toBe(0);
    expect(checked).toEqual([true]);
    expect(content.page(1, 0)?.seoTitle).toBe('A sharper SEO title');
  });

  it('several approved writes are all re-checked before any executes, and none does on a change', async () => {
    const twoWrites: ScriptedRound = {
      toolCalls: [
        { name: 'pages_update', arguments: { seoTitle: 'First' } },
        { name: 'pages_update', arguments: { pageId: 2, seoTitle: 'Second' } },
      ],
    };
    const { content, provider, state } = await pausedRun([twoWrites, { text: 'Both done.' }]);
    content.edit(2, 0, { seoTitle: 'Edited meanwhile' });
    const previews = spyOnPreviews(content);
    const fake = fakePorts({ provider, content });
    const again = asSuspended(
      await resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'bob' }, fake.ports),
    );
    expect(again.pending.turn).toBe(2);
    expect(previews()).toBe(2);
    expect(content.applied).toEqual([]);
    expect(fake.effects).toEqual([]);
    expect(fake.stored).toEqual([]);
  });

  it('stops before the write when the lease is lost while marking the pending effect', async () => {
    const { content, state } = await pausedRun(EDITOR_ROUNDS);
    const fake = fakePorts({ rounds: EDITOR_ROUNDS, content });
    const ports = { ...fake.ports, setPendingEffect: () => Promise.reject(new LeaseLostError()) };
    await expect(
      resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'bob' }, ports),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(content.applied).toEqual([]);
    expect(fake.stored).toEqual([]);
  });

  it('hands over a checkpoint after each write, so a requeue never repeats one', async () => {
    const twoWrites: ScriptedRound = {
      toolCalls: [
        { name: 'pages_update', arguments: { seoTitle: 'First' } },
        { name: 'pages_update', arguments: { pageId: 2, seoTitle: 'Second' } },
      ],
    };
    const { content, provider, state } = await pausedRun([twoWrites, { text: 'Both done.' }]);
    let marks = 0;
    const fake = fakePorts({ provider, content });
    const checkpoints = fake.checkpoints;
    const dying = {
      ...fake.ports,
      setPendingEffect: (effect: PendingEffect) => {
        // why: the process "dies" when it is about to start the second write.
        if (++marks === 2) return Promise.reject(new LeaseLostError());
        return fake.ports.setPendingEffect(effect);
      },
    };
    await expect(
      resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'bob' }, dying),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(content.applied).toHaveLength(1);
    expect(checkpoints).toHaveLength(1);
    const cp = checkpoints[0] as SuspendedState;
    expect(cp.pending).toBeNull();
    expect(cp.settledResults.map((r) => r.callId)).toEqual(['call_1_1']);
    expect(cp.carryOver?.map((c) => c.id)).toEqual(['call_1_2']);

    const outcome = await runAgent(startInput({ initialState: cp }), fakePorts({ provider, content }).ports);
    expect(outcome).toMatchObject({ kind: 'completed', answer: 'Both done.' });
    expect(content.applied.map((c) => c.fields.seoTitle)).toEqual(['First', 'Second']);
    expect(lastToolMessages(provider).map((m) => m.callId)).toEqual(['call_1_1', 'call_1_2']);
  });

  it('runs a transactional write and its completion inside `atomically`, where the ports offer it', async () => {
    const { content, provider, state } = await pausedRun(EDITOR_ROUNDS);
    const fake = fakePorts({ provider, content });
    const trail: string[] = [];
    let inside = false;
    const ports = {
      ...fake.ports,
      atomically: async <T>(work: () => Promise<T>): Promise<T> => {
        trail.push('begin');
        inside = true;
        try {
          return await work();
        } finally {
          inside = false;
          trail.push('end');
        }
      },
      setPendingEffect: (effect: PendingEffect) => {
        trail.push(`announce${inside ? ' (inside)' : ''}`);
        return fake.ports.setPendingEffect(effect);
      },
      completeEffect: (
        steps: Parameters<typeof fake.ports.completeEffect>[0],
        checkpoint?: SuspendedState,
      ) => {
        trail.push(`complete ${content.applied.length} write(s)${inside ? ' (inside)' : ''}`);
        return fake.ports.completeEffect(steps, checkpoint);
      },
    };
    await resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'bob' }, ports);
    // why: the write (content.applied) happened inside, before its completion, in the same unit.
    expect(trail).toEqual(['announce', 'begin', 'complete 1 write(s) (inside)', 'end']);
    expect(fake.stored.map((s) => s.kind)).toEqual(['TOOL', 'TOOL_WRITE', 'REQUEST', 'LLM']);
  });

  it('a failing completion inside `atomically` fails the unit: the caller rolls the write back', async () => {
    const { content, provider, state } = await pausedRun(EDITOR_ROUNDS);
    const fake = fakePorts({ provider, content, loseLeaseAt: { kind: 'TOOL_WRITE' } });
    let units = 0;
    const ports = {
      ...fake.ports,
      atomically: async <T>(work: () => Promise<T>): Promise<T> => {
        units += 1;
        return work();
      },
    };
    await expect(
      resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'bob' }, ports),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(units).toBe(1);
    expect(fake.stored).toEqual([]);
  });

  it('gives a process run the results of every call of the round in call order', async () => {
    const round: ScriptedRound = {
      toolCalls: [
        { name: 'pages_update', arguments: { seoTitle: 'One' } },
        { name: 'pages_read', arguments: {} },
        { name: 'pages_update', arguments: { pageId: 2, seoTitle: 'Two' } },
      ],
    };
    const { content, provider, state } = await pausedRun([round, { text: 'ok' }], {
      processPin: { skillId: 1 },
    });
    await resumeAgent(
      ctx,
      state,
      { kind: 'approve', decidedBy: 'alice' },
      fakePorts({ provider, content }).ports,
    );
    const results = lastToolMessages(provider);
    expect(results.map((m) => [m.callId, m.isError])).toEqual([
      ['call_1_1', false],
      ['call_1_2', false],
      ['call_1_3', true],
    ]);
    expect(content.applied.map((c) => c.pageId)).toEqual([1]);
  });

  it('approving an unknown tool only tells the model it does not exist', async () => {
    const { provider, content, state } = await pausedRun([
      { toolCalls: [{ name: 'drop_tables', arguments: {} }] },
      { text: 'ok' },
    ]);
    const fake = fakePorts({ provider, content });
    await resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'bob' }, fake.ports);
    expect(JSON.parse(lastToolMessages(provider)[0]?.content ?? '{}').error).toMatch(
      /Unknown tool "drop_tables"/,
    );
    expect(fake.effects).toEqual([]);
  });
});

describe('resumeAgent: deny', () => {
  it('gives every pending call a result naming who declined and why; nothing executes', async () => {
    const round: ScriptedRound = {
      toolCalls: [
        { name: 'pages_read', arguments: {} },
        { name: 'pages_update', arguments: { seoTitle: 'New' } },
      ],
    };
    const { content, provider, state } = await pausedRun([round, { text: 'Understood.' }]);
    const read = jest.spyOn(content, 'readPage');
    const fake = fakePorts({ provider, content });
    const outcome = await resumeAgent(
      ctx,
      state,
      { kind: 'deny', decidedBy: 'bob', reason: 'VARIANT' },
      fake.ports,
    );

    expect(outcome).toMatchObject({ kind: 'completed', answer: 'Understood.' });
    const results = lastToolMessages(provider);
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(r.isError).toBe(true);
      expect(r.content).toMatch(/Declined by bob; nothing was done\. Reason: VARIANT/);
    }
    expect(read).not.toHaveBeenCalled();
    expect(content.applied).toEqual([]);
    expect(fake.effects).toEqual([]);
    expect(fake.stored.map((s) => s.kind)).toEqual(['TOOL', 'TOOL', 'REQUEST', 'LLM']);
  });

  it('says SKIP, or no reason', async () => {
    const { provider, content, state } = await pausedRun(EDITOR_ROUNDS);
    await resumeAgent(
      ctx,
      state,
      { kind: 'deny', decidedBy: 'carol', reason: 'SKIP' },
      fakePorts({ provider, content }).ports,
    );
    expect(lastToolMessages(provider).at(-1)?.content).toMatch(/Declined by carol.*SKIP/);
  });
});

describe('resumeAgent: input', () => {
  it('validates the values (structure and enums) and reports the failing paths', async () => {
    const { state } = await pausedRun(QUESTION_ROUNDS);
    const paths = (values: unknown) => {
      try {
        validateInput(state, values);
        return [];
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidInputError);
        return (e as InvalidInputError).paths;
      }
    };
    expect(paths({ tone: 'loud' })).toEqual(['/tone']);
    expect(paths({})).toEqual(['/tone']);
    expect(paths({ tone: 'formal', extra: 1 })).toEqual(['/extra']);
    expect(paths({ tone: 3 })).toEqual(['/tone']);
    expect(paths('formal')).toEqual(['']);
    expect(paths({ tone: 'formal' })).toEqual([]);
    expect(validateInput(state.pending!, { tone: 'casual' })).toEqual({ tone: 'casual' });
  });

  it('rejects invalid input before doing anything', async () => {
    const { provider, state } = await pausedRun(QUESTION_ROUNDS);
    const fake = fakePorts({ provider });
    await expect(
      resumeAgent(ctx, state, { kind: 'input', submittedBy: 'alice', values: { tone: 'loud' } }, fake.ports),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(fake.stored).toEqual([]);
    expect(provider.requests).toHaveLength(1);
  });

  it('answers the input call with the declared values and goes on', async () => {
    const { provider, state } = await pausedRun(QUESTION_ROUNDS);
    const fake = fakePorts({ provider });
    const outcome = await resumeAgent(
      ctx,
      state,
      { kind: 'input', submittedBy: 'alice', values: { tone: 'formal' } },
      fake.ports,
    );
    expect(outcome).toMatchObject({ kind: 'completed', answer: 'Thanks, I will use that tone.' });
    const result = lastToolMessages(provider)[0];
    expect(result).toMatchObject({ callId: 'call_1_1', isError: false, content: '{"tone":"formal"}' });
    expect(fake.stored.map((s) => s.kind)).toEqual(['TOOL', 'REQUEST', 'LLM']);
  });

  it('lays over only the keys the schema declares; reads of the round run on submit', async () => {
    const schema = { type: 'object', properties: { tone: { type: 'string' } } };
    const round: ScriptedRound = {
      toolCalls: [
        { name: 'pages_read', arguments: {} },
        { name: 'ask_user', arguments: { question: 'Tone?', schema } },
      ],
    };
    const { provider, content, state } = await pausedRun([round, { text: 'ok' }]);
    await resumeAgent(
      ctx,
      state,
      { kind: 'input', submittedBy: 'alice', values: { tone: 'dry', question: 'hijack', schema: {} } },
      fakePorts({ provider, content }).ports,
    );
    const results = lastToolMessages(provider);
    expect(results.map((r) => r.callId)).toEqual(['call_1_1', 'call_1_2']);
    expect(JSON.parse(results[0]?.content ?? '{}')).toMatchObject({ title: 'Home' });
    expect(JSON.parse(results[1]?.content ?? '{}')).toEqual({ tone: 'dry' });
  });
});

describe('resumeAgent: misfits and the decision step', () => {
  it('refuses a decision of the wrong kind', async () => {
    const { state } = await pausedRun(QUESTION_ROUNDS);
    await expect(
      resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'x' }, fakePorts().ports),
    ).rejects.toBeInstanceOf(DecisionMismatchError);
    await expect(
      resumeAgent(
        ctx,
        { ...state, pending: null },
        { kind: 'input', submittedBy: 'x', values: {} },
        fakePorts().ports,
      ),
    ).rejects.toBeInstanceOf(DecisionMismatchError);
  });

  it('builds the APPROVAL / INPUT step for the decision layer, without input values', async () => {
    const { state } = await pausedRun(EDITOR_ROUNDS);
    expect(decisionStep({ kind: 'deny', decidedBy: 'bob', reason: 'SKIP' }, state, 3)).toEqual({
      kind: 'APPROVAL',
      round: 2,
      durationMs: 0,
      payload: {
        approved: false,
        decidedBy: 3,
        reason: 'SKIP',
        callCount: 1,
        toolNames: ['pages_update'],
        turn: 1,
        digest: state.pending?.digest,
      },
    });
    const q = await pausedRun(QUESTION_ROUNDS);
    const input = decisionStep(
      { kind: 'input', submittedBy: 'alice', values: { tone: 'formal' } },
      q.state,
      2,
    );
    expect(input.kind).toBe('INPUT');
    expect(JSON.stringify(input)).not.toContain('formal');
    expect(digestsEqual(q.state.pending!.digest, input.payload.digest as string)).toBe(true);
  });

  it('notices a cancel before carrying out the decision', async () => {
    const { content, state } = await pausedRun(EDITOR_ROUNDS);
    const fake = fakePorts({ content, stopAtCheck: 1 });
    const outcome = await resumeAgent(ctx, state, { kind: 'approve', decidedBy: 'bob' }, fake.ports);
    expect(outcome.kind).toBe('cancelled');
    expect(content.applied).toEqual([]);
  });
});
