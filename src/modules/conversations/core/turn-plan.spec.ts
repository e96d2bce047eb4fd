import { contextNote, planTurnSkills } from './turn-plan';

const catalogue = [
  { identifier: 'seo-process', name: 'SEO', isProcess: true, skillId: 1, skillVersionId: 10, version: 1 },
  { identifier: 'tone-of-voice', name: 'Tone', isProcess: false, skillId: 2, skillVersionId: 20, version: 3 },
];
const tone = {
  identifier: 'tone-of-voice',
  enabled: true,
  approved: { name: 'Tone', body: 'Be kind.', isProcess: false },
};
const seo = {
  identifier: 'seo-process',
  enabled: true,
  approved: { name: 'SEO', body: 'Steps', isProcess: true },
};
const onSeo = { skillIdentifier: 'seo-process', skillIsProcess: true };

describe('planTurnSkills', () => {
  it('invokes a process skill on the first run, naming no predecessor', () => {
    const plan = planTurnSkills({ ...onSeo, skillStartPending: false, lastRunId: null }, catalogue, [], seo);
    expect(plan).toMatchObject({ invoke: catalogue[0], predecessorRunId: null, clearsStartPending: true });
  });

  it('invokes it again after a pick (startPending), otherwise names the last run', () => {
    const state = { ...onSeo, lastRunId: 'r1' };
    expect(planTurnSkills({ ...state, skillStartPending: true }, catalogue, [], seo).invoke).toBe(
      catalogue[0],
    );
    const next = planTurnSkills({ ...state, skillStartPending: false }, catalogue, [], seo);
    expect(next).toMatchObject({ invoke: null, predecessorRunId: 'r1', clearsStartPending: false });
  });

  it('names the predecessor when the process skill left the catalogue (so the drop is told)', () => {
    const plan = planTurnSkills({ ...onSeo, skillStartPending: true, lastRunId: 'r1' }, [], [], null);
    expect(plan).toMatchObject({ invoke: null, predecessorRunId: 'r1', forcedSkills: [] });
  });

  it('ends the process once its skill was removed or replaced by a non-process skill', () => {
    const removed = {
      skillIdentifier: null,
      skillIsProcess: false,
      skillStartPending: false,
      lastRunId: 'r1',
    };
    expect(planTurnSkills(removed, catalogue, [], null)).toMatchObject({
      invoke: null,
      predecessorRunId: null,
    });
    const replaced = { ...removed, skillIdentifier: 'tone-of-voice' };
    expect(planTurnSkills(replaced, catalogue, [], tone)).toMatchObject({
      invoke: null,
      predecessorRunId: null,
    });
  });

  it('sends a non-process skill’s approved version as reference data, once next to the configuration’s own', () => {
    const state = {
      skillIdentifier: 'tone-of-voice',
      skillIsProcess: false,
      skillStartPending: false,
      lastRunId: 'r1',
    };
    expect(planTurnSkills(state, catalogue, [], tone).forcedSkills).toEqual([
      { identifier: 'tone-of-voice', name: 'Tone', body: 'Be kind.' },
    ]);
    const attached = planTurnSkills(
      state,
      catalogue,
      [
        tone,
        seo,
        { ...tone, identifier: 'off', enabled: false },
        { ...tone, identifier: 'unapproved', approved: null },
      ],
      tone,
    );
    expect(attached.forcedSkills.map((s) => s.identifier)).toEqual(['tone-of-voice']);
  });
});

describe('contextNote', () => {
  it('names the page, and the language only where given', () => {
    expect(contextNote({ page: null, language: null })).toBe('');
    expect(contextNote({ page: { id: 3, title: 'About', slug: '/about' }, language: null })).toBe(
      'The user is working on page 3 "About" (/about).',
    );
    expect(
      contextNote({
        page: { id: 3, title: null, slug: '/about' },
        language: { id: 1, code: 'de', title: 'Deutsch' },
      }),
    ).toBe('The user is working on page 3 (/about).\nThe page language is 1 (Deutsch, de).');
  });
});
