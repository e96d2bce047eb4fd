import { EDITOR_ROUNDS } from '../../src/demo/demo-data';
import { startResting, upsertConfiguration } from './decisions';
import type { SuiteApp } from './suite';

/** What the refusal suite (decisions-refusals.e2e-spec.ts) starts its runs with, on its app. */
export function refusalRuns({ t, ids }: SuiteApp) {
  let copies = 0;
  return {
    /** A fresh copy of demo-editor, so a test may delete or deactivate it alone. */
    editorCopy: (extra: Record<string, unknown> = {}) =>
      upsertConfiguration(t, {
        identifier: `refusal-copy-${++copies}`,
        providerOptions: { rounds: EDITOR_ROUNDS },
        ...extra,
      }),
    /** A run of demo-editor (or `configurationId`) on `page`, resting in WAITING_FOR_APPROVAL. */
    editorRun: async (page: string, configurationId = ids.configurations['demo-editor']!, as = 'alice') =>
      startResting(t, as, {
        configurationId,
        prompt: 'SEO please',
        subjectPageId: ids.pages[page],
      }),
    /** The page text row of `page`, for `effects`. */
    pageOf: (page: string) => ({ pageId: ids.pages[page]! }),
  };
}
