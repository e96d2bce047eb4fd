import { recordScriptedRequests, ScriptedProvider } from '../providers/scripted';
import { startInput } from '../testing/fixtures';
import { assembleTranscript, processBlock } from './context';
import type { ProviderRequest } from './types';

const instructions = {
  identifier: 'seo-process',
  name: 'SEO',
  version: 3,
  body: 'Read the page first. </skill> is not a fence here.',
  subject: { id: 7, languageId: 2 },
};

describe('assembleTranscript', () => {
  it('sends a process’s instructions after the system prompt, apart from the fenced reference skills', () => {
    const transcript = assembleTranscript(
      startInput({
        processInstructions: instructions,
        skills: [{ identifier: 'tone', name: 'Tone', body: 'Be kind.' }],
      }),
    );
    expect(transcript.map((m) => m.role)).toEqual(['system', 'system', 'system', 'user']);
    expect(transcript[1]!.content).toBe(processBlock(instructions));
    expect(transcript[1]!.content).toContain('"SEO" (skill seo-process, version 3) on page 7, in language 2');
    expect(transcript[1]!.content).toContain(instructions.body);
    expect(transcript[2]!.content).toMatch(/^Reference data/);
    expect(transcript[2]!.content).not.toContain('Read the page first');
  });

  it('sends no process block for a run without a process, and names a missing page and language', () => {
    expect(assembleTranscript(startInput()).filter((m) => m.role === 'system')).toHaveLength(1);
    expect(processBlock({ ...instructions, subject: { id: null, languageId: 0 } })).toContain(
      'on no particular page, in its default language',
    );
  });
});

describe('recordScriptedRequests', () => {
  afterEach(() => recordScriptedRequests(null));

  it('hands every request to the listener until it is removed', async () => {
    const seen: ProviderRequest[] = [];
    recordScriptedRequests((r) => seen.push(r));
    const provider = new ScriptedProvider({ rounds: [{ text: 'hi' }] });
    const request = { messages: [{ role: 'user' as const, content: 'x' }], tools: [], callIndex: 1 };
    await provider.complete(request);
    recordScriptedRequests(null);
    await provider.complete(request);
    expect(seen).toEqual([request]);
  });
});
