// Helpers of the PagesService specs (pages-*.int-spec.ts): the service on a test database with
// the demo data, its pages and users by name, and reads of page_text behind the service's back.
import { DataSource } from 'typeorm';
import { Refusal } from '../../../src/common/refusal';
import { PagesService } from '../../../src/modules/content/application/pages.service';
import { ContentUser } from '../../../src/modules/content/core/content-access.policy';
import { ContentRepository } from '../../../src/modules/content/persistence/content.repository';
import { TransactionRunner } from '../../../src/platform/database/transaction-runner';
import { useTestDatabase } from '../../support/test-database';

export interface TextRow {
  title: string;
  body: string;
  seo_title: string | null;
  seo_description: string | null;
  updated_at: Date;
}

/** The slugs of the demo pages, by the names the specs use for them. */
const DEMO_PAGES = {
  Home: '/',
  About: '/about',
  Products: '/products',
  Widget: '/products/widget',
  Blog: '/blog',
  Launch: '/blog/launch',
  Orphan: '/orphan',
};

/** PagesService on a test database of its own, and what the specs look up in it. */
export interface PagesDemo {
  /** Set before the tests. */
  ds: DataSource;
  /** Set before the tests. */
  pages: PagesService;
  /** Page ids by name (Home, About, Products, Widget, Blog, Launch, Orphan). */
  readonly ids: Record<string, number>;
  /** The demo users by username, with the page and language rights of their groups. */
  readonly users: Record<string, ContentUser>;
  /** The page_text row of the page in the language and workspace, if there is one. */
  readonly textRow: (pageId: number, languageId: number, workspaceId: number) => Promise<TextRow | undefined>;
  /** How many page_text rows there are, in all workspaces. */
  readonly countTexts: () => Promise<number>;
}

/** Opens a test database before the tests of the calling describe and disposes of it after them. */
export function pagesOnDemoData(): PagesDemo {
  const suite = useTestDatabase();
  const demo = {
    ids: {},
    users: {},
    textRow: async (pageId: number, languageId: number, workspaceId: number) => {
      const rows: TextRow[] = await demo.ds.query(
        `SELECT title, body, seo_title, seo_description, updated_at FROM page_text
          WHERE page_id = $1 AND language_id = $2 AND workspace_id = $3`,
        [pageId, languageId, workspaceId],
      );
      return rows[0];
    },
    countTexts: async () =>
      Number((await demo.ds.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM page_text'))[0]!.n),
  } as PagesDemo;

  beforeAll(async () => {
    const ds = suite.ds;
    demo.ds = ds;
    demo.pages = new PagesService(new ContentRepository(ds), new TransactionRunner(ds));
    const rows: Array<{ id: number; slug: string }> = await ds.query('SELECT id, slug FROM page');
    const idOf = new Map(rows.map((r) => [r.slug, r.id]));
    for (const [name, slug] of Object.entries(DEMO_PAGES)) demo.ids[name] = idOf.get(slug)!;
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
      const user = (demo.users[m.username] ??= { isAdmin: m.is_admin, groups: [] }) as {
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
  return demo;
}

/** The refusal the work fails with (fails the test where it succeeds or fails otherwise). */
export async function refusalOf(work: Promise<unknown>): Promise<Refusal> {
  try {
    await work;
  } catch (e) {
    if (e instanceof Refusal) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}
