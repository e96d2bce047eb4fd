import { EDITOR_ROUNDS } from '../../demo/demo-data';
import type { ScriptedRound } from '../providers/scripted';
import { fakePorts } from '../testing/fake-ports';
import { startInput } from '../testing/fixtures';
import { resumeAgent } from './resume';
import { lastToolMessages, pausedRun } from './resume.fixtures';

const ctx = startInput();

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
