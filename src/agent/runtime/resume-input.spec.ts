import { QUESTION_ROUNDS } from '../../demo/demo-data';
import type { ScriptedRound } from '../providers/scripted';
import { fakePorts } from '../testing/fake-ports';
import { startInput } from '../testing/fixtures';
import { InvalidInputError } from './errors';
import { validateInput } from './input';
import { resumeAgent } from './resume';
import { lastToolMessages, pausedRun } from './resume.fixtures';

const ctx = startInput();

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
