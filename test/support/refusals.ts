import { EDITOR_ROUNDS } from '../../src/demo/demo-data';
import { startResting, upsertConfiguration } from './decisions';
import type { demoIds } from './runs';
import type { TestApp } from './test-app';

/**
 * What the refusal suite (decisions-refusals.e2e-spec.ts) starts its runs with; `app` is read
 * at each call (the suite's app boots in beforeAll).
 */
export function refusalRuns(app: () => { t: TestApp; ids: Awaited<ReturnType<typeof demoIds>> }) {
  let copies = 0;
  return {
    /** A fresh copy of demo-editor, so a test may delete or deactivate it alone. */
    editorCopy: (extra: Record<string, unknown> = {}) =>
      upsertConfiguration(app().t, {
        identifier: `refusal-copy-${++copies}`,
        providerOptions: { rounds: EDITOR_ROUNDS },
        ...extra,
      }),
    /** A run of demo-editor (or `configurationId`) on `page`, resting in WAITING_FOR_APPROVAL. */
    editorRun: async (
      page: string,
      configurationId = app().ids.configurations['demo-editor']!,
      as = 'alice',
    ) =>
      startResting(app().t, as, {
        configurationId,
        prompt: 'SEO please',
        subjectPageId: app().ids.pages[page],
      }),
    /** The page text row of `page`, for `effects`. */
    pageOf: (page: string) => ({ pageId: app().ids.pages[page]! }),
  };
}
