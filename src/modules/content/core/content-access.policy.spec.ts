import {
  ContentUser,
  editableLanguages,
  mayEditLanguage,
  mayEditPage,
  mayEditPageText,
  mayShowPage,
  PageAccessRef,
  pageLanguageIds,
  showableRoots,
} from './content-access.policy';

// The demo data (docs/demo-data.md) as plain data, with the ids the seed gives it.
const SITE_LANGUAGES = [0, 1, 2];
const PAGES: Record<string, PageAccessRef> = {
  Home: { id: 1, siteId: 1, rootline: [1] },
  About: { id: 2, siteId: 1, rootline: [1, 2] },
  Products: { id: 3, siteId: 1, rootline: [1, 3] },
  Widget: { id: 4, siteId: 1, rootline: [1, 3, 4] },
  Blog: { id: 5, siteId: 1, rootline: [1, 5] },
  Launch: { id: 6, siteId: 1, rootline: [1, 5, 6] },
  Orphan: { id: 7, siteId: null, rootline: [7] },
};
const editors = { showPageIds: [1], editPageIds: [1], editLanguageIds: [0, 1] };
const approvers = { showPageIds: [1], editPageIds: [1], editLanguageIds: [0, 1] };
const interns = { showPageIds: [1], editPageIds: [], editLanguageIds: [] };
const restricted = { showPageIds: [5], editPageIds: [], editLanguageIds: [0] };
const USERS: Record<string, ContentUser> = {
  admin: { isAdmin: true, groups: [] },
  alice: { isAdmin: false, groups: [editors] },
  bob: { isAdmin: false, groups: [approvers] },
  carol: { isAdmin: false, groups: [editors, approvers] },
  dave: { isAdmin: false, groups: [interns] },
  erin: { isAdmin: false, groups: [restricted] },
};

// user, page, may show, may edit page, languages (of 0, 1, 2) it may work in, languages it may write text in
type Row = [string, string, boolean, boolean, number[], number[]];
const TABLE: Row[] = [
  ['admin', 'Home', true, true, [0, 1, 2], [0, 1, 2]],
  ['admin', 'About', true, true, [0, 1, 2], [0, 1, 2]],
  ['admin', 'Products', true, true, [0, 1, 2], [0, 1, 2]],
  ['admin', 'Widget', true, true, [0, 1, 2], [0, 1, 2]],
  ['admin', 'Blog', true, true, [0, 1, 2], [0, 1, 2]],
  ['admin', 'Launch', true, true, [0, 1, 2], [0, 1, 2]],
  ['admin', 'Orphan', true, true, [0], [0]],

  ['alice', 'Home', true, true, [0, 1], [0, 1]],
  ['alice', 'About', true, true, [0, 1], [0, 1]],
  ['alice', 'Products', true, true, [0, 1], [0, 1]],
  ['alice', 'Widget', true, true, [0, 1], [0, 1]],
  ['alice', 'Blog', true, true, [0, 1], [0, 1]],
  ['alice', 'Launch', true, true, [0, 1], [0, 1]],
  ['alice', 'Orphan', false, false, [], []],

  ['bob', 'Home', true, true, [0, 1], [0, 1]],
  ['bob', 'About', true, true, [0, 1], [0, 1]],
  ['bob', 'Products', true, true, [0, 1], [0, 1]],
  ['bob', 'Widget', true, true, [0, 1], [0, 1]],
  ['bob', 'Blog', true, true, [0, 1], [0, 1]],
  ['bob', 'Launch', true, true, [0, 1], [0, 1]],
  ['bob', 'Orphan', false, false, [], []],

  ['carol', 'Home', true, true, [0, 1], [0, 1]],
  ['carol', 'About', true, true, [0, 1], [0, 1]],
  ['carol', 'Products', true, true, [0, 1], [0, 1]],
  ['carol', 'Widget', true, true, [0, 1], [0, 1]],
  ['carol', 'Blog', true, true, [0, 1], [0, 1]],
  ['carol', 'Launch', true, true, [0, 1], [0, 1]],
  ['carol', 'Orphan', false, false, [], []],

  ['dave', 'Home', true, false, [], []],
  ['dave', 'About', true, false, [], []],
  ['dave', 'Products', true, false, [], []],
  ['dave', 'Widget', true, false, [], []],
  ['dave', 'Blog', true, false, [], []],
  ['dave', 'Launch', true, false, [], []],
  ['dave', 'Orphan', false, false, [], []],

  ['erin', 'Home', false, false, [], []],
  ['erin', 'About', false, false, [], []],
  ['erin', 'Products', false, false, [], []],
  ['erin', 'Widget', false, false, [], []],
  ['erin', 'Blog', true, false, [0], []],
  ['erin', 'Launch', true, false, [0], []],
  ['erin', 'Orphan', false, false, [], []],
];

describe('content access policy on the demo data', () => {
  it('covers every demo user and page once', () => {
    expect(TABLE).toHaveLength(Object.keys(USERS).length * Object.keys(PAGES).length);
    expect(new Set(TABLE.map(([u, p]) => `${u}/${p}`)).size).toBe(TABLE.length);
  });

  describe.each(TABLE)('%s on %s', (userName, pageName, show, edit, languages, textLanguages) => {
    const user = USERS[userName]!;
    const page = PAGES[pageName]!;

    it(`may show: ${show}`, () => {
      expect(mayShowPage(user, page)).toBe(show);
    });

    it(`may edit the page: ${edit}`, () => {
      expect(mayEditPage(user, page)).toBe(edit);
    });

    it.each([0, 1, 2])('language %i', (languageId) => {
      expect(mayEditLanguage(user, page, languageId, SITE_LANGUAGES)).toBe(languages.includes(languageId));
      expect(mayEditPageText(user, page, languageId, SITE_LANGUAGES)).toBe(
        textLanguages.includes(languageId),
      );
    });

    it(`editable languages: [${languages.join(', ')}]`, () => {
      expect(editableLanguages(user, page, SITE_LANGUAGES)).toEqual(languages);
    });
  });
});

describe('content access policy edge cases', () => {
  it('gives a page outside every site language 0 only, whatever list the caller passes', () => {
    expect(pageLanguageIds(PAGES.Orphan!, [0, 1, 2])).toEqual([0]);
    expect(pageLanguageIds(PAGES.Orphan!, [])).toEqual([0]);
    expect(pageLanguageIds(PAGES.Home!, [2, 0, 1, 0])).toEqual([0, 1, 2]);
  });

  it('refuses a language the site does not have, even to admins', () => {
    expect(mayEditLanguage(USERS.admin!, PAGES.Home!, 3, SITE_LANGUAGES)).toBe(false);
    expect(mayEditLanguage(USERS.alice!, PAGES.Home!, 0, [1])).toBe(false);
  });

  it('lets edit rights imply show rights', () => {
    const editorOnly: ContentUser = {
      isAdmin: false,
      groups: [{ showPageIds: [], editPageIds: [3], editLanguageIds: [0] }],
    };
    expect(mayShowPage(editorOnly, PAGES.Widget!)).toBe(true);
    expect(mayShowPage(editorOnly, PAGES.About!)).toBe(false);
    expect(mayEditPageText(editorOnly, PAGES.Products!, 0, SITE_LANGUAGES)).toBe(true);
    expect(showableRoots(editorOnly)).toEqual([3]);
  });

  it('adds up the permissions of several groups (page from one, language from another)', () => {
    const mixed: ContentUser = {
      isAdmin: false,
      groups: [
        { showPageIds: [], editPageIds: [5], editLanguageIds: [] },
        { showPageIds: [], editPageIds: [], editLanguageIds: [1] },
      ],
    };
    expect(mayEditPageText(mixed, PAGES.Launch!, 1, SITE_LANGUAGES)).toBe(true);
    expect(mayEditPageText(mixed, PAGES.Launch!, 0, SITE_LANGUAGES)).toBe(false);
    expect(showableRoots(mixed)).toEqual([5]);
  });

  it('matches a page granted by its own id even with an empty rootline', () => {
    const user: ContentUser = {
      isAdmin: false,
      groups: [{ showPageIds: [9], editPageIds: [], editLanguageIds: [] }],
    };
    expect(mayShowPage(user, { id: 9, siteId: null, rootline: [] })).toBe(true);
  });

  it('reports admins as seeing every root', () => {
    expect(showableRoots(USERS.admin!)).toBe('all');
    expect(showableRoots(USERS.carol!)).toEqual([1]);
    expect(showableRoots(USERS.erin!)).toEqual([5]);
  });
});
