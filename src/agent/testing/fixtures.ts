import type { CompleteOptions, Provider } from '../providers/provider';
import { ScriptedProvider, type ScriptedRound } from '../providers/scripted';
import type { StartInput } from '../runtime/ports';
import type { ProviderRequest, RunOutcome, SuspendedOutcome } from '../runtime/types';
import type { MemoryPage } from './in-memory-content';

/** Fixtures of the runtime's unit tests. */
export const HOME: MemoryPage = {
  pageId: 1,
  languageId: 0,
  slug: '/',
  title: 'Home',
  body: 'Welcome to the Demo site.',
  seoTitle: 'Demo: home',
  seoDescription: null,
};
export const ABOUT: MemoryPage = { ...HOME, pageId: 2, slug: '/about', title: 'About', seoTitle: 'About us' };

/** A start input about page 1, language 0, owner 2. */
export function startInput(extra: Partial<StartInput> = {}): StartInput {
  return {
    runId: 'run-1',
    owner: { id: 2 },
    workspaceId: 0,
    subject: { pageId: 1, languageId: 0 },
    maxIterations: 5,
    privacyLevel: 'METADATA',
    systemPrompt: 'You edit pages.',
    prompt: 'Sharpen the SEO title PROMPT-SENTINEL',
    ...extra,
  };
}

/** A scripted provider that remembers what it was sent. */
export class RecordingProvider implements Provider {
  readonly name = 'recording';
  readonly requests: ProviderRequest[] = [];
  private readonly inner: ScriptedProvider;

  constructor(rounds: readonly ScriptedRound[]) {
    this.inner = new ScriptedProvider({ rounds });
  }

  complete(request: ProviderRequest, options?: CompleteOptions) {
    this.requests.push(request);
    return this.inner.complete(request, options);
  }
}

export function asSuspended(outcome: RunOutcome): SuspendedOutcome {
  if (outcome.kind !== 'suspended') throw new Error(`expected suspended, got ${JSON.stringify(outcome)}`);
  return outcome;
}
