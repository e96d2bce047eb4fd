import { DataSource } from 'typeorm';
import { PagesService } from '../../../src/modules/content/application/pages.service';
import { ContentUser } from '../../../src/modules/content/core/content-access.policy';
import { ContentRepository } from '../../../src/modules/content/persistence/content.repository';
import { TransactionRunner } from '../../../src/platform/database/transaction-runner';
import { Refusal } from '../../../src/common/refusal';
import { createTestDatabase, itOnPostgres, openDataSource, TestDatabase } from '../../support/test-database';

interface TextRow {
  title: string;
  body: string;
  seo_title: string | null;
  seo_description: string | null;
  updated_at: Date;
}

describe('PagesService on a real database', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let pages: PagesService;
  const ids: Record<string, number> = {};
  const users: Record<string, ContentUser> = {};

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await openDataSource(db);
    pages = new PagesService(new ContentRepository(ds), new TransactionRunner(ds));
    const rows: Array<{ id: number; slug: string }> = await ds.query('SELECT id, slug FROM page');
    const keyOf: Record<string, string> = {
      '/': 'Home',
      '/about': 'About',
      '/products': 'Products',
      '/products/widget': 'Widget',
      '/blog': 'Blog',
      '/blog/launch': 'Launch',
      '/orphan': 'Orphan',
    };
    for (const r of rows) ids[keyOf[r.slug]!] = r.id;
    const members: Array<{
      username: string;
      is_admin: boolean;
      show_page_ids: number[] | null;
      edit_page_ids: number[] | null;
      edit_language_ids: number[] | null;
    }> = await ds.query(
      `SELECT u.username, u.is_admin, g.show_page_ids, g.edit_page_ids, g.edit_language_ids
         FROM app_user u LEFT JOIN group_member m ON m.user_id = u.id LEFT JOIN access_group g ON g.id = m.group_id`,
    );
    for (const m of members) {
      const user = (users[m.username] ??= { isAdmin: m.is_admin, groups: [] }) as {
        isAdmin: boolean;
        groups: ContentUser['groups'][number][];
      };
      if (m.show_page_ids) {
        user.groups.push({
          showPageIds: m.show_page_ids,
          editPageIds: m.edit_page_ids ?? [],
          editLanguageIds: m.edit_language_ids ?? [],
        });
      }
    }
  });
  afterAll(async () => {
    await ds.destroy();
    await db.dispose();
  });

  const textRow = async (
    pageId: number,
    languageId: number,
    workspaceId: number,
  ): Promise<TextRow | undefined> => {
    const rows: TextRow[] = await ds.query(
      `SELECT title, body, seo_title, seo_description, updated_at FROM page_text
        WHERE page_id = $1 AND language_id = $2 AND workspace_id = $3`,
      [pageId, languageId, workspaceId],
    );
    return rows[0];
  };
  const countTexts = async (): Promise<number> =>
    Number((await ds.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM page_text'))[0]!.n);
  const refusalOf = async (work: Promise<unknown>): Promise<Refusal> => {
    try {
      await work;
    } catch (e) {
      if (e instanceof Refusal) return e;
      throw e;
    }
    throw new Error('expected a refusal');
  };

  describe('updateText', () => {
    it('writes into workspace 3, created from live, and leaves live untouched', async () => {
      const liveBefore = await textRow(ids.Home!, 0, 0);
      const before = await countTexts();

      const result = await pages.updateText(users.alice!, {
        pageId: ids.Home!,
        languageId: 0,
        workspaceId: 3,
        seoTitle: 'A sharper SEO title',
      });

      expect(result.created).toBe(true);
      expect(result.changes).toEqual([{ field: 'seoTitle', from: 'Demo: home', to: 'A sharper SEO title' }]);
      expect(result.preview).toEqual(['seoTitle: "Demo: home" → "A sharper SEO title"']);
      expect(result.text).toEqual({
        title: 'Home',
        body: 'Welcome to the Demo site.',
        seoTitle: 'A sharper SEO title',
        seoDescription: null,
      });
      expect(await countTexts()).toBe(before + 1);
      expect(await textRow(ids.Home!, 0, 3)).toMatchObject({
        title: 'Home',
        body: 'Welcome to the Demo site.',
        seo_title: 'A sharper SEO title',
        seo_description: null,
      });
      expect(await textRow(ids.Home!, 0, 0)).toEqual(liveBefore);
      expect((await pages.readText(ids.Home!, 0, 3))?.seoTitle).toBe('A sharper SEO title');
      expect((await pages.readText(ids.Home!, 0, 0))?.seoTitle).toBe('Demo: home');
    });

    it('updates the existing workspace row on a second write and keeps its earlier change', async () => {
      const before = await countTexts();
      const result = await pages.updateText(users.carol!, {
        pageId: ids.Home!,
        languageId: 0,
        workspaceId: 3,
        title: 'Home, refreshed',
        seoTitle: 'A sharper SEO title',
      });
      expect(result.created).toBe(false);
      expect(result.changes).toEqual([{ field: 'title', from: 'Home', to: 'Home, refreshed' }]);
      expect(await countTexts()).toBe(before);
      expect(await textRow(ids.Home!, 0, 3)).toMatchObject({
        title: 'Home, refreshed',
        seo_title: 'A sharper SEO title',
      });
      expect((await textRow(ids.Home!, 0, 0))?.title).toBe('Home');
    });

    it('writes nothing when nothing changes', async () => {
      const before = await countTexts();
      const result = await pages.updateText(users.alice!, {
        pageId: ids.About!,
        languageId: 1,
        workspaceId: 6,
        title: 'Über uns',
        seoTitle: 'Über uns',
      });
      expect(result.changes).toEqual([]);
      expect(result.preview).toEqual([]);
      expect(result.created).toBe(false);
      expect(await countTexts()).toBe(before);
      expect(await textRow(ids.About!, 1, 6)).toBeUndefined();
    });

    it('writes live (workspace 0) in place', async () => {
      const before = await countTexts();
      const result = await pages.updateText(users.bob!, {
        pageId: ids.Widget!,
        languageId: 1,
        workspaceId: 0,
        seoDescription: 'Ein Widget',
      });
      expect(result.created).toBe(false);
      expect(result.preview).toEqual(['seoDescription: (none) → "Ein Widget"']);
      expect(await countTexts()).toBe(before);
      expect((await textRow(ids.Widget!, 1, 0))?.seo_description).toBe('Ein Widget');
    });

    it('creates the first text of a language without one (admin, French)', async () => {
      const result = await pages.updateText(users.admin!, {
        pageId: ids.Blog!,
        languageId: 2,
        workspaceId: 4,
        title: 'Blog (fr)',
      });
      expect(result.created).toBe(true);
      expect(result.text).toEqual({ title: 'Blog (fr)', body: '', seoTitle: null, seoDescription: null });
      expect(await textRow(ids.Blog!, 2, 4)).toMatchObject({ title: 'Blog (fr)', body: '' });
      expect(await textRow(ids.Blog!, 2, 0)).toBeUndefined();
    });

    it('runs inside the caller transaction and rolls back with it', async () => {
      const before = await countTexts();
      await expect(
        new TransactionRunner(ds).run(async () => {
          await pages.updateText(users.alice!, {
            pageId: ids.Launch!,
            languageId: 0,
            workspaceId: 8,
            title: 'Launched',
          });
          expect((await pages.readText(ids.Launch!, 0, 8))?.title).toBe('Launched');
          throw new Error('caller gives up');
        }),
      ).rejects.toThrow('caller gives up');
      expect(await countTexts()).toBe(before);
      expect(await textRow(ids.Launch!, 0, 8)).toBeUndefined();
    });
  });

  describe('refused updates write nothing', () => {
    const refusedCases: Array<[string, string, () => Record<string, unknown>, string]> = [
      ['dave (no edit rights)', 'dave', () => ({ pageId: ids.Home, languageId: 0 }), 'PAGE_NOT_ACCESSIBLE'],
      ['erin on a hidden page', 'erin', () => ({ pageId: ids.About, languageId: 0 }), 'PAGE_NOT_ACCESSIBLE'],
      [
        'erin on a page she only shows',
        'erin',
        () => ({ pageId: ids.Blog, languageId: 0 }),
        'PAGE_NOT_ACCESSIBLE',
      ],
      ['alice on an unknown page', 'alice', () => ({ pageId: 999999, languageId: 0 }), 'PAGE_NOT_ACCESSIBLE'],
      ['alice on the orphan', 'alice', () => ({ pageId: ids.Orphan, languageId: 0 }), 'PAGE_NOT_ACCESSIBLE'],
      ['alice in French', 'alice', () => ({ pageId: ids.Home, languageId: 2 }), 'LANGUAGE_NOT_ACCESSIBLE'],
      [
        'admin in a language the orphan lacks',
        'admin',
        () => ({ pageId: ids.Orphan, languageId: 1 }),
        'LANGUAGE_NOT_ACCESSIBLE',
      ],
      ['a blank title', 'alice', () => ({ pageId: ids.Home, languageId: 0, title: '  ' }), 'BAD_USER_INPUT'],
      [
        'an over-long SEO title',
        'alice',
        () => ({ pageId: ids.Home, languageId: 0, seoTitle: 'x'.repeat(501) }),
        'BAD_USER_INPUT',
      ],
      [
        'a body that is no string',
        'alice',
        () => ({ pageId: ids.Home, languageId: 0, body: 42 }),
        'BAD_USER_INPUT',
      ],
      [
        'a negative workspace',
        'alice',
        () => ({ pageId: ids.Home, languageId: 0, workspaceId: -1 }),
        'BAD_USER_INPUT',
      ],
    ];

    it.each(refusedCases)('%s', async (_name, username, input, code) => {
      const before = await countTexts();
      const update = { workspaceId: 9, title: 'Hijacked', ...input() } as never;
      const refusal = await refusalOf(pages.updateText(users[username]!, update));
      expect(refusal.code).toBe(code);
      expect((await refusalOf(pages.preview(users[username]!, update))).code).toBe(code);
      expect(await countTexts()).toBe(before);
      const hijacked: unknown[] = await ds.query("SELECT 1 FROM page_text WHERE title = 'Hijacked'");
      expect(hijacked).toHaveLength(0);
    });

    it('gives an unknown and a hidden page the same message', async () => {
      const hidden = await refusalOf(
        pages.updateText(users.erin!, { pageId: ids.About!, languageId: 0, workspaceId: 0, title: 'x' }),
      );
      expect(hidden.message).toBe(`Page ${ids.About} is not accessible`);
      const dave = await refusalOf(
        pages.updateText(users.dave!, { pageId: ids.About!, languageId: 0, workspaceId: 0, title: 'x' }),
      );
      expect(dave.message).toBe(`You may not edit page ${ids.About}`);
    });
  });

  describe('preview', () => {
    it('lists the changed fields only, old → new, and writes nothing', async () => {
      const before = await countTexts();
      const lines = await pages.preview(users.alice!, {
        pageId: ids.Products!,
        languageId: 1,
        workspaceId: 7,
        title: 'Unsere Produkte',
        body: 'Alles, was wir herstellen.',
        seoTitle: null,
        seoDescription: 'Was wir bauen',
      });
      expect(lines).toEqual([
        'title: "Produkte" → "Unsere Produkte"',
        'seoTitle: "Unsere Produkte" → (none)',
        'seoDescription: (none) → "Was wir bauen"',
      ]);
      expect(await countTexts()).toBe(before);
      expect(await textRow(ids.Products!, 1, 7)).toBeUndefined();
    });

    it('previews against the workspace row where it exists', async () => {
      const lines = await pages.preview(users.alice!, {
        pageId: ids.Home!,
        languageId: 0,
        workspaceId: 3,
        seoTitle: 'Another',
      });
      expect(lines).toEqual(['seoTitle: "A sharper SEO title" → "Another"']);
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

  itOnPostgres(
    'lets first writes into other workspaces of a page pass an open one, and holds a live edit until it commits',
    async () => {
      const blocked = Symbol('still waiting');
      const within = async <T>(work: Promise<T>, ms: number): Promise<T | typeof blocked> => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<typeof blocked>((r) => (timer = setTimeout(() => r(blocked), ms)));
        try {
          return await Promise.race([work, late]);
        } finally {
          clearTimeout(timer);
        }
      };
      const firstWrite = (workspaceId: number, title: string) =>
        pages.updateText(users.alice!, { pageId: ids.Products!, languageId: 0, workspaceId, title });
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let opened!: () => void;
      const open = new Promise<void>((r) => (opened = r));
      // A first write into workspace 21 whose transaction stays open (the live row under its lock).
      const holder = new TransactionRunner(ds).run(async () => {
        await firstWrite(21, 'Products (21)');
        opened();
        await held;
      });
      await open;

      const other = await within(firstWrite(22, 'Products (22)'), 5_000);
      expect(other).not.toBe(blocked);
      expect(await textRow(ids.Products!, 0, 22)).toMatchObject({ title: 'Products (22)' });

      const liveEdit = pages.updateText(users.admin!, {
        pageId: ids.Products!,
        languageId: 0,
        workspaceId: 0,
        seoDescription: 'Live, after the drafts',
      });
      expect(await within(liveEdit, 300)).toBe(blocked);
      release();
      await holder;
      await liveEdit;
      expect(await textRow(ids.Products!, 0, 21)).toMatchObject({
        title: 'Products (21)',
        seo_description: null,
      });
      expect(await textRow(ids.Products!, 0, 0)).toMatchObject({ seo_description: 'Live, after the drafts' });
    },
  );

  itOnPostgres('lets two concurrent first writes into one workspace both land', async () => {
    const before = await countTexts();
    const results = await Promise.all([
      pages.updateText(users.alice!, {
        pageId: ids.About!,
        languageId: 0,
        workspaceId: 11,
        title: 'About (A)',
      }),
      pages.updateText(users.carol!, {
        pageId: ids.About!,
        languageId: 0,
        workspaceId: 11,
        seoDescription: 'From B',
      }),
    ]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await countTexts()).toBe(before + 1);
    expect(await textRow(ids.About!, 0, 11)).toMatchObject({
      title: 'About (A)',
      seo_description: 'From B',
      body: 'Who we are and what we do.',
    });
  });
});
