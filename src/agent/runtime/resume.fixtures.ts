// Helpers of the resume specs (resume-*.spec.ts): a run paused at its first decision, as
// storage gives it back, and what the content port and the provider saw after the resume.
import { randomBytes } from 'node:crypto';
import type { ScriptedRound } from '../providers/scripted';
import { fakePorts } from '../testing/fake-ports';
import { ABOUT, asSuspended, HOME, RecordingProvider, startInput } from '../testing/fixtures';
import { InMemoryContent } from '../testing/in-memory-content';
import { runAgent } from './loop';
import type { StartInput } from './ports';
import { decryptState, encryptState } from './state-cipher';

/** A round of two writes: page 1 (the subject) and page 2. */
export const TWO_WRITES: ScriptedRound = {
  toolCalls: [
    { name: 'pages_update', arguments: { seoTitle: 'First' } },
    { name: 'pages_update', arguments: { pageId: 2, seoTitle: 'Second' } },
  ],
};

/** Runs a script to its first pause; returns the content, the provider and the stored state. */
export async function pausedRun(rounds: readonly ScriptedRound[], extra: Partial<StartInput> = {}) {
  const content = new InMemoryContent([HOME, ABOUT]);
  const provider = new RecordingProvider(rounds);
  const first = asSuspended(await runAgent(startInput(extra), fakePorts({ provider, content }).ports));
  const key = randomBytes(32);
  // why: what resumes is what storage gives back, so go through the cipher like the runs module.
  const state = decryptState(encryptState(first.state, key, 'run-1'), key, 'run-1');
  return { content, provider, first, state };
}

/** Counts the preview reads of the content port from now on. */
export function spyOnPreviews(content: InMemoryContent): () => number {
  let reads = 0;
  const preview = content.previewUpdate.bind(content);
  content.previewUpdate = (owner, change) => {
    reads += 1;
    return preview(owner, change);
  };
  return () => reads;
}

/** The tool results of the provider's last request. */
export const lastToolMessages = (provider: RecordingProvider) =>
  (provider.requests.at(-1)?.messages ?? []).filter((m) => m.role === 'tool');
