import { DataSource } from 'typeorm';
import { PagesService } from '../../../src/modules/content/application/pages.service';
import { TransactionRunner } from '../../../src/platform/database/transaction-runner';
import type { TextReads } from '../../../src/modules/content';
import { StatementLog } from '../../support/statement-log';
import { itOnPostgres } from '../../support/test-database';
import { pagesOnDemoData, refusalOf } from './pages-support';

describe('PagesService on a real database', () => {
  const demo = pagesOnDemoData();
  const { ids, users, textRow, countTexts } = demo;
  let ds: DataSource;
  let pages: PagesService;
  beforeAll(() => {
    ({ ds, pages } = demo);
  });

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
      expect(result.changes).toEqual([{ field: 'seoDescription', from: null, to: 'Ein Widget' }]);
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
      expect((await refusalOf(pages.planTextUpdate(users[username]!, update))).code).toBe(code);
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

  describe('planTextUpdate', () => {
    it('lists the changed fields only, old and new, and writes nothing', async () => {
      const before = await countTexts();
      const plan = await pages.planTextUpdate(users.alice!, {
        pageId: ids.Products!,
        languageId: 1,
        workspaceId: 7,
        title: 'Unsere Produkte',
        body: 'Alles, was wir herstellen.',
        seoTitle: null,
        seoDescription: 'Was wir bauen',
      });
      expect(plan.changes).toEqual([
        { field: 'title', from: 'Produkte', to: 'Unsere Produkte' },
        { field: 'seoTitle', from: 'Unsere Produkte', to: null },
        { field: 'seoDescription', from: null, to: 'Was wir bauen' },
      ]);
      expect(await countTexts()).toBe(before);
      expect(await textRow(ids.Products!, 1, 7)).toBeUndefined();
    });

    it('plans against the workspace row where it exists', async () => {
      const plan = await pages.planTextUpdate(users.alice!, {
        pageId: ids.Home!,
        languageId: 0,
        workspaceId: 3,
        seoTitle: 'Another',
      });
      expect(plan.changes).toEqual([{ field: 'seoTitle', from: 'A sharper SEO title', to: 'Another' }]);
    });
  });

  describe('readAhead', () => {
    it('reads several texts in one statement; each serves its first plan, judged for the user', async () => {
      const at = [
        { pageId: ids.Home!, languageId: 0, workspaceId: 3 },
        { pageId: ids.Home!, languageId: 0, workspaceId: 42 },
        { pageId: 987_654, languageId: 0, workspaceId: 0 },
        { pageId: ids.About!, languageId: 0, workspaceId: 0 },
      ];
      const log = StatementLog.open();
      let reads: TextReads;
      try {
        reads = await pages.readAhead(at);
      } finally {
        log.close();
      }
      expect(log.statements).toHaveLength(1);
      // the workspace's own row; live where the workspace has none; null for no such page
      expect(reads.take(at[0]!)?.text).toMatchObject({ workspaceId: 3, seoTitle: 'A sharper SEO title' });
      expect(reads.take(at[0]!)).toBeUndefined();
      expect(reads.take(at[1]!)?.text).toMatchObject({ workspaceId: 0, seoTitle: 'Demo: home' });
      expect(reads.take(at[2]!)).toBeNull();

      const again = await pages.readAhead(at);
      const planned = StatementLog.open();
      try {
        const write = await pages.planGuardedTextUpdate(
          users.alice!,
          { ...at[1]!, seoTitle: 'Read ahead' },
          undefined,
          again,
        );
        expect(typeof write).toBe('object');
        // judged for the user on the read: erin may not see About
        const hidden = await refusalOf(
          pages.planGuardedTextUpdate(users.erin!, { ...at[3]!, title: 'x' }, undefined, again),
        );
        expect(hidden.code).toBe('PAGE_NOT_ACCESSIBLE');
        expect(
          await refusalOf(
            pages.planGuardedTextUpdate(users.admin!, { ...at[2]!, title: 'x' }, undefined, again),
          ),
        ).toMatchObject({ code: 'PAGE_NOT_ACCESSIBLE' });
      } finally {
        planned.close();
      }
      expect(planned.statements).toEqual([]);
      // a second plan of a text already taken reads it itself
      const second = StatementLog.open();
      try {
        await pages.planGuardedTextUpdate(
          users.alice!,
          { ...at[1]!, seoTitle: 'Read ahead' },
          undefined,
          again,
        );
      } finally {
        second.close();
      }
      expect(second.statements).toHaveLength(1);
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
