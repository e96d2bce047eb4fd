import { buildCatalogue, findInCatalogue, IDENTIFIER_PATTERN, SkillView } from './skill';

let nextId = 1;
const skill = (identifier: string, over: Partial<SkillView> = {}): SkillView => ({
  id: nextId++,
  identifier,
  name: `Name of ${identifier}`,
  description: `About ${identifier}`,
  body: 'body',
  isProcess: false,
  enabled: true,
  ...over,
  approved:
    over.approved === undefined
      ? {
          versionId: 1000 + (over.id ?? nextId),
          version: 1,
          name: over.name ?? `Name of ${identifier}`,
          description: `About ${identifier}`,
          body: 'body',
          isProcess: over.isProcess ?? false,
        }
      : over.approved,
});

describe('buildCatalogue', () => {
  it('joins configuration and Task skills, deduplicated by identifier (first copy wins)', () => {
    const shared = skill('tone', { id: 100 });
    const catalogue = buildCatalogue(
      [skill('seo', { isProcess: true }), shared],
      [skill('tone', { id: 200, name: 'Task copy' }), skill('extra')],
    );
    expect(catalogue.map((e) => e.identifier)).toEqual(['seo', 'tone', 'extra']);
    expect(findInCatalogue(catalogue, 'tone')).toMatchObject({ skillId: 100, name: 'Name of tone' });
    expect(findInCatalogue(catalogue, 'seo')?.isProcess).toBe(true);
  });

  it('leaves disabled skills out, also when a Task attaches an enabled skill of another identifier', () => {
    const catalogue = buildCatalogue(
      [skill('legacy', { enabled: false }), skill('a')],
      [skill('b', { enabled: false })],
    );
    expect(catalogue.map((e) => e.identifier)).toEqual(['a']);
  });

  it('leaves out skills without an approved version and shows the approved version, not the last edit', () => {
    const edited = skill('edited', { name: 'Draft name' });
    const approved = { ...edited.approved!, name: 'Approved name', version: 2 };
    const catalogue = buildCatalogue([{ ...edited, approved }, skill('new', { approved: null })]);
    expect(catalogue).toEqual([
      expect.objectContaining({ identifier: 'edited', name: 'Approved name', version: 2 }),
    ]);
  });

  it('names an entry by its identifier where the name is empty', () => {
    const [entry] = buildCatalogue([skill('nameless', { name: '  ' })]);
    expect(entry).toEqual({
      identifier: 'nameless',
      name: 'nameless',
      description: 'About nameless',
      isProcess: false,
      skillId: expect.any(Number),
      skillVersionId: expect.any(Number),
      version: 1,
    });
  });

  it('orders each part by identifier, so the result is stable', () => {
    const catalogue = buildCatalogue([skill('z'), skill('b')], [skill('y'), skill('a')]);
    expect(catalogue.map((e) => e.identifier)).toEqual(['b', 'z', 'a', 'y']);
  });

  it('is empty without skills', () => {
    expect(buildCatalogue([], [])).toEqual([]);
  });
});

describe('IDENTIFIER_PATTERN', () => {
  it.each(['default', 'demo-editor', 'a', 'v1.2_x', '0abc'])('accepts %p', (id) => {
    expect(IDENTIFIER_PATTERN.test(id)).toBe(true);
  });
  it.each(['', '-x', 'Upper', 'with space', 'a/b', 'x'.repeat(101)])('refuses %p', (id) => {
    expect(IDENTIFIER_PATTERN.test(id)).toBe(false);
  });
});
