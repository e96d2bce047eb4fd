import {
  DEMO_CONFIGURATIONS,
  DEMO_GROUPS,
  DEMO_PAGES,
  DEMO_SITE,
  DEMO_SKILLS,
  DEMO_TASKS,
  DEMO_USERS,
  ORPHAN_PAGE,
} from './demo-data';

// The tables of docs/demo-data.md, which tests, the README and the benchmarks rely on.
describe('the demo data set', () => {
  it('has the users of demo-data.md', () => {
    expect(DEMO_USERS.map((u) => [u.username, u.locale, u.isAdmin, [...u.groups]])).toEqual([
      ['admin', 'en', true, []],
      ['alice', 'en', false, ['editors']],
      ['bob', 'de', false, ['approvers']],
      ['carol', 'en', false, ['editors', 'approvers']],
      ['dave', 'en', false, ['interns']],
      ['erin', 'en', false, ['restricted']],
    ]);
  });

  it('has the groups of demo-data.md', () => {
    expect(
      DEMO_GROUPS.map((g) => [g.name, [...g.grants], [...g.show], [...g.edit], [...g.languages]]),
    ).toEqual([
      ['editors', ['CHAT'], ['Home'], ['Home'], [0, 1]],
      ['approvers', ['AGENT_APPROVE'], ['Home'], ['Home'], [0, 1]],
      ['interns', ['CHAT'], ['Home'], [], []],
      ['restricted', ['CHAT'], ['Blog'], [], [0]],
    ]);
  });

  it('has the site, languages and page tree of demo-data.md, parents before children', () => {
    expect(DEMO_SITE.languages.map((l) => [l.languageId, l.isoCode])).toEqual([
      [0, 'en'],
      [1, 'de'],
      [2, 'fr'],
    ]);
    expect(DEMO_PAGES.map((p) => [p.key, p.parent, p.slug])).toEqual([
      ['Home', null, '/'],
      ['About', 'Home', '/about'],
      ['Products', 'Home', '/products'],
      ['Widget', 'Products', '/products/widget'],
      ['Blog', 'Home', '/blog'],
      ['Launch', 'Blog', '/blog/launch'],
    ]);
    // why: seedDemo resolves each parent from the pages created before it.
    DEMO_PAGES.forEach((p, i) => {
      if (p.parent !== null) expect(DEMO_PAGES.slice(0, i).map((q) => q.key)).toContain(p.parent);
    });
    expect(DEMO_PAGES.every((p) => p.en.title && p.de.title)).toBe(true);
    expect(DEMO_PAGES.map((p) => p.slug)).not.toContain(ORPHAN_PAGE.slug);
  });

  it('refers only to pages, groups, skills and configurations it defines', () => {
    const pages = new Set(DEMO_PAGES.map((p) => p.key));
    const groups = new Set(DEMO_GROUPS.map((g) => g.name));
    const skills = new Set<string>(DEMO_SKILLS.map((s) => s.identifier));
    const configurations = new Set(DEMO_CONFIGURATIONS.map((c) => c.identifier));
    expect(DEMO_GROUPS.flatMap((g) => [...g.show, ...g.edit]).filter((k) => !pages.has(k))).toEqual([]);
    expect(DEMO_USERS.flatMap((u) => u.groups).filter((g) => !groups.has(g))).toEqual([]);
    expect(DEMO_CONFIGURATIONS.flatMap((c) => c.skills).filter((s) => !skills.has(s))).toEqual([]);
    expect(DEMO_TASKS.filter((t) => !configurations.has(t.configuration))).toEqual([]);
    expect(DEMO_TASKS.flatMap((t) => t.groups).filter((g) => !groups.has(g))).toEqual([]);
  });

  it('has the configurations, skills and tasks of demo-data.md', () => {
    expect(
      DEMO_CONFIGURATIONS.map((c) => [c.identifier, c.requireSecondApprover, c.privacyLevel, c.isActive]),
    ).toEqual([
      ['demo-editor', false, 'METADATA', true],
      ['demo-four-eyes', true, 'METADATA', true],
      ['demo-question', false, 'FULL', true],
      ['demo-inactive', false, 'METADATA', false],
    ]);
    const attachedTo = (skill: string): string[] =>
      DEMO_CONFIGURATIONS.filter((c) => c.skills.includes(skill)).map((c) => c.identifier);
    expect(DEMO_SKILLS.map((s) => [s.identifier, s.isProcess, s.enabled, attachedTo(s.identifier)])).toEqual([
      ['seo-process', true, true, ['demo-editor', 'demo-four-eyes']],
      ['tone-of-voice', false, true, ['demo-editor', 'demo-four-eyes']],
      ['legacy-skill', false, false, ['demo-editor']],
    ]);
    expect(DEMO_TASKS.map((t) => [t.identifier, t.configuration, [...t.groups], t.priority])).toEqual([
      ['default', 'demo-editor', [], 0],
      ['four-eyes-chat', 'demo-four-eyes', ['restricted'], 10],
    ]);
  });
});
