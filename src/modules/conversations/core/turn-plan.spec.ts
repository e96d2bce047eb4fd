import { contextNote, planTurnSkills } from './turn-plan';

const catalogue = [
  { identifier: 'seo-process', name: 'SEO', isProcess: true, skillId: 1 },
  { identifier: 'tone-of-voice', name: 'Tone', isProcess: false, skillId: 2 },
];
const tone = {
  id: 2,
  identifier: 'tone-of-voice',
  name: 'Tone',
  body: 'Be kind.',
  isProcess: false,
  enabled: true,
};
const seo = { id: 1, identifier: 'seo-process', name: 'SEO', body: 'Steps', isProcess: true, enabled: true };

describe('planTurnSkills', () => {
  it('invokes a process skill on the first run, naming no predecessor', () => {
    const plan = planTurnSkills(
      { skillIdentifier: 'seo-process', skillStartPending: false, lastRunId: null },
      catalogue,
      [],
      seo,
    );
    expect(plan).toMatchObject({ invoke: catalogue[0], predecessorRunId: null, clearsStartPending: true });
  });

  it('invokes it again after a pick (startPending), otherwise names the last run', () => {
    const state = { skillIdentifier: 'seo-process', lastRunId: 'r1' };
    expect(planTurnSkills({ ...state, skillStartPending: true }, catalogue, [], seo).invoke).toBe(
      catalogue[0],
    );
    const next = planTurnSkills({ ...state, skillStartPending: false }, catalogue, [], seo);
    expect(next).toMatchObject({ invoke: null, predecessorRunId: 'r1', clearsStartPending: false });
  });

  it('names the predecessor when the skill left the catalogue', () => {
    const plan = planTurnSkills(
      { skillIdentifier: 'seo-process', skillStartPending: true, lastRunId: 'r1' },
      [],
      [],
      null,
    );
    expect(plan).toMatchObject({ invoke: null, predecessorRunId: 'r1', forcedSkills: [] });
  });

  it('sends a non-process skill as reference data, once next to the configuration’s own', () => {
    const state = { skillIdentifier: 'tone-of-voice', skillStartPending: false, lastRunId: 'r1' };
    expect(planTurnSkills(state, catalogue, [], tone).forcedSkills).toEqual([
      { identifier: 'tone-of-voice', name: 'Tone', body: 'Be kind.' },
    ]);
    const attached = planTurnSkills(
      state,
      catalogue,
      [tone, seo, { ...tone, identifier: 'off', enabled: false }],
      tone,
    );
    expect(attached.forcedSkills.map((s) => s.identifier)).toEqual(['tone-of-voice']);
    expect(attached.predecessorRunId).toBe('r1');
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
