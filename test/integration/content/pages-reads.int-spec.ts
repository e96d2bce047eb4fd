import { PagesService } from '../../../src/modules/content/application/pages.service';
import { pagesOnDemoData, refusalOf } from './pages-support';

describe('PagesService on a real database', () => {
  const demo = pagesOnDemoData();
  const { ids, users } = demo;
  let pages: PagesService;
  beforeAll(async () => {
    pages = demo.pages;
    // why: the search below reads live text only; this title stands in workspace 3 alone.
    await pages.updateText(users.carol!, {
      pageId: ids.Home!,
      languageId: 0,
      workspaceId: 3,
      title: 'Home, refreshed',
    });
  });

  describe('reads', () => {
    it('finds pages for a user, hides others alike, and knows their languages', async () => {
      expect((await pages.getPageForUser(users.erin!, ids.Launch!))?.rootline).toEqual([
        ids.Home,
        ids.Blog,
        ids.Launch,
      ]);
      expect(await pages.getPageForUser(users.erin!, ids.About!)).toBeNull();
      expect(await pages.getPageForUser(users.erin!, 999999)).toBeNull();
      const home = await pages.getPageForUser(users.admin!, ids.Home!);
      const orphan = await pages.getPageForUser(users.admin!, ids.Orphan!);
      expect(await pages.siteLanguageIds(home!)).toEqual([0, 1, 2]);
      expect(await pages.siteLanguageIds(orphan!)).toEqual([0]);
      expect(await pages.defaultPageId()).toBe(ids.Home);
    });

    it('reads a page for a user with the live fallback', async () => {
      const read = await pages.readPageForUser(users.dave!, ids.Launch!, 1, 5);
      expect(read.page.slug).toBe('/blog/launch');
      expect(read.languageIds).toEqual([0, 1, 2]);
      expect(read.text).toMatchObject({
        workspaceId: 0,
        languageId: 1,
        title: 'Start',
        body: 'Wir sind gestartet.',
      });
      expect((await pages.readPageForUser(users.dave!, ids.Launch!, 2)).text).toBeNull();
      expect((await refusalOf(pages.readPageForUser(users.erin!, ids.Home!))).code).toBe(
        'PAGE_NOT_ACCESSIBLE',
      );
    });

    it('reads a page with its text in one statement: the workspace row first, else live', async () => {
      await pages.updateText(users.admin!, {
        pageId: ids.Launch!,
        languageId: 1,
        workspaceId: 11,
        title: 'Entwurf',
      });
      const own = await pages.readPageText(users.admin!, ids.Launch!, 1, 11);
      expect(own.page.id).toBe(ids.Launch);
      expect(own.text).toMatchObject({ workspaceId: 11, languageId: 1, title: 'Entwurf' });
      expect((await pages.readPageText(users.admin!, ids.Launch!, 1, 12)).text).toMatchObject({
        workspaceId: 0,
        title: 'Start',
        body: 'Wir sind gestartet.',
      });
      expect((await pages.readPageText(users.admin!, ids.Launch!, 2)).text).toBeNull();
      for (const [user, pageId] of [
        [users.erin!, ids.Home!],
        [users.admin!, 999999],
      ] as const) {
        expect((await refusalOf(pages.readPageText(user, pageId))).code).toBe('PAGE_NOT_ACCESSIBLE');
      }
    });

    it('searches live text of the pages the user may show', async () => {
      const widget = await pages.search(users.alice!, 'WIDGET');
      expect(widget).toEqual([
        {
          pageId: ids.Widget,
          siteId: expect.any(Number),
          slug: '/products/widget',
          languageId: 0,
          title: 'Widget',
        },
      ]);
      // "wir" is in the German text of About, Products and Launch; erin may show only Blog and Launch.
      expect(await pages.search(users.erin!, 'wir')).toEqual([
        {
          pageId: ids.Launch,
          siteId: expect.any(Number),
          slug: '/blog/launch',
          languageId: 1,
          title: 'Start',
        },
      ]);
      expect((await pages.search(users.dave!, 'wir')).map((h) => h.pageId)).toEqual([
        ids.About,
        ids.Products,
        ids.Launch,
      ]);
      expect(await pages.search(users.alice!, 'orphan')).toEqual([]);
      expect((await pages.search(users.admin!, 'orphan')).map((h) => h.pageId)).toEqual([ids.Orphan]);
      expect(await pages.search(users.admin!, '%')).toEqual([]);
      expect(await pages.search(users.admin!, 'Home, refreshed')).toEqual([]); // workspace 3 only, not live
      expect((await pages.search(users.admin!, 'e', 2)).length).toBe(2);
      expect((await pages.search(users.dave!, 'startseite'))[0]).toMatchObject({
        pageId: ids.Home,
        languageId: 1,
      });
      expect((await refusalOf(pages.search(users.alice!, '   '))).code).toBe('BAD_USER_INPUT');
    });
  });
});
