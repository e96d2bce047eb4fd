import { startResting, upsertConfiguration } from '../support/decisions';
import { startRun, waitForRest } from '../support/runs';
import { useTestApp } from '../support/suite';

const USERS = ['admin', 'alice', 'bob', 'carol', 'dave', 'erin'] as const;
type User = (typeof USERS)[number];
/** docs/security.md: detail = the owner (alice here) or an admin; decide = detail or AGENT_APPROVE. */
const ACCESS: Record<User, 'detail' | 'decide' | 'none'> = {
  admin: 'detail',
  alice: 'detail',
  bob: 'decide',
  carol: 'decide',
  dave: 'none',
  erin: 'none',
};

/** Every field some readers are refused (Run.steps, Run.answer), next to sibling fields. */
const PAGE = `query($waiting: ID!, $done: ID!) {
  viewer { user { username } }
  inbox { run { id status steps(first: 5) { nodes { sequence } } answer } }
  waiting: run(id: $waiting) { id status steps(first: 5) { hasMore } answer }
  done: run(id: $done) { id status stepCount steps(first: 5) { hasMore } answer }
}`;

interface RunPart {
  id: string;
  status: string;
  steps: unknown;
  answer: string | null;
}
interface Page {
  viewer: { user: { username: string } };
  inbox: Array<{ run: RunPart }>;
  waiting: RunPart | null;
  done: (RunPart & { stepCount: number }) | null;
}

/**
 * One refused field must not blank a page (issue 16): a field refused for some readers is
 * nullable and refuses alone, null with its code at its own path; its siblings still arrive.
 */
describe('refused fields refuse alone', () => {
  const { t, ids } = useTestApp();
  let waiting: string;
  let done: string;

  beforeAll(async () => {
    waiting = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'Sharpen the SEO title',
      subjectPageId: ids.pages.About,
    });
    const answering = await upsertConfiguration(t, {
      identifier: 'refused-fields-answer',
      privacyLevel: 'FULL',
      providerOptions: { rounds: [{ text: 'All done.' }] },
    });
    done = (await startRun(t, 'alice', { configurationId: answering, prompt: 'Say done' })).id;
    expect(await waitForRest(t, done)).toBe('COMPLETED');
  });

  it.each(USERS)(
    'as %s: the siblings arrive; steps and answer are null with FORBIDDEN at their paths',
    async (as) => {
      const res = await t.gql<Page>(PAGE, { waiting, done }, as);
      expect(res.status).toBe(200);
      const data = res.data!;
      expect(data.viewer.user.username).toBe(as);
      const errors = (res.errors ?? []).map((e) => ({ code: e.extensions?.code, path: e.path }));
      const listed = data.inbox.map((i) => i.run.id);
      switch (ACCESS[as]) {
        case 'detail':
          expect(errors).toEqual([]);
          expect(data.waiting).toMatchObject({
            id: waiting,
            status: 'WAITING_FOR_APPROVAL',
            steps: { hasMore: true },
          });
          expect(data.done).toMatchObject({ id: done, status: 'COMPLETED', answer: 'All done.' });
          expect(data.done!.steps).not.toBeNull();
          expect(listed.includes(waiting)).toBe(as === 'alice' || as === 'admin');
          break;
        case 'decide': {
          const at = listed.indexOf(waiting);
          expect(at).toBeGreaterThanOrEqual(0);
          expect(data.inbox[at]!.run).toEqual({
            id: waiting,
            status: 'WAITING_FOR_APPROVAL',
            steps: null,
            answer: null,
          });
          expect(data.waiting).toEqual({
            id: waiting,
            status: 'WAITING_FOR_APPROVAL',
            steps: null,
            answer: null,
          });
          expect(data.done).toMatchObject({ id: done, status: 'COMPLETED', steps: null, answer: null });
          expect(data.done!.stepCount).toBeGreaterThan(0);
          const refusedPaths = [
            ...data.inbox.flatMap((_, i) => [
              ['inbox', i, 'run', 'steps'],
              ['inbox', i, 'run', 'answer'],
            ]),
            ['waiting', 'steps'],
            ['waiting', 'answer'],
            ['done', 'steps'],
            ['done', 'answer'],
          ];
          const byPath = (a: { path?: unknown }, b: { path?: unknown }) =>
            JSON.stringify(a.path).localeCompare(JSON.stringify(b.path));
          expect(errors.sort(byPath)).toEqual(
            refusedPaths.map((path) => ({ code: 'FORBIDDEN', path })).sort(byPath),
          );
          break;
        }
        case 'none':
          expect(errors).toEqual([]);
          expect(data.waiting).toBeNull();
          expect(data.done).toBeNull();
          expect(listed).not.toContain(waiting);
          break;
      }
    },
  );
});
