import { EDITOR_ROUNDS } from '../../demo/demo-data';
import type { ScriptedRound } from '../providers/scripted';
import { fakePorts } from '../testing/fake-ports';
import { asSuspended, startInput } from '../testing/fixtures';
import { turnDigest } from './digest';
import { LeaseLostError } from './errors';
import { runAgent } from './loop';
import type { PendingEffect } from './ports';
import { resumeAgent } from './resume';
import { lastToolMessages, pausedRun, spyOnPreviews, TWO_WRITES } from './resume.fixtures';
import type { SuspendedState } from './types';

const ctx = startInput();

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
    const { content, provider, state } = await pausedRun([TWO_WRITES, { text: 'Both done.' }]);
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
    const { content, provider, state } = await pausedRun([TWO_WRITES, { text: 'Both done.' }]);
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
