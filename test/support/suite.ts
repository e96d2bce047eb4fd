import { demoIds, type DemoIds } from './runs';
import { bootTestApp, type TestApp } from './test-app';

/** The app of a describe block and the ids of its demo data (useTestApp). */
export interface SuiteApp {
  /** The booted app: read at each use, so it serves inside tests and in later hooks. */
  readonly t: TestApp;
  /** The demo data's ids, read once the app has booted. */
  readonly ids: DemoIds;
}

export interface SuiteOptions {
  /**
   * Runs in the helper's afterAll just before the app closes: for what must end while the app
   * still runs (a listener, a client, a mock it calls). Clean-up that may come after the close
   * belongs in the suite's own afterAll: jest runs afterAll hooks in the order they are declared.
   */
  beforeClose?: () => unknown;
}

// why: a Record over keyof, so a member added to TestApp or DemoIds fails the type check here
// until its stand-in reads it too.
const TEST_APP_MEMBERS: Record<keyof TestApp, true> = {
  app: true,
  db: true,
  dataSource: true,
  config: true,
  url: true,
  wsUrl: true,
  tokens: true,
  gql: true,
  ws: true,
  close: true,
};
const DEMO_IDS_MEMBERS: Record<keyof DemoIds, true> = { configurations: true, pages: true, users: true };

/** An object whose every member is read from `current()` at each use (methods bound to it). */
function standIn<T extends object>(members: Record<keyof T, true>, current: () => T): T {
  const stand = {} as T;
  for (const key of Object.keys(members) as Array<keyof T>) {
    Object.defineProperty(stand, key, {
      enumerable: true,
      get: () => {
        const target = current();
        const value = target[key];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
  return stand;
}

/**
 * Boots the app on a fresh database in a beforeAll of the calling describe block, reads the demo
 * ids, and closes the app in an afterAll. `env` is handed to bootTestApp; a function is called
 * in the beforeAll, for settings known only once an earlier beforeAll has run.
 *
 * `t` and `ids` stand in for the booted app and its ids (destructure them where the suite is
 * declared): each use reads the booted ones, and one before the boot (or after it failed) throws.
 * The suite's own beforeAll hooks, declared after this call, run after the boot.
 */
export function useTestApp(
  env: Record<string, string> | (() => Record<string, string>) = {},
  options: SuiteOptions = {},
): SuiteApp {
  let app: TestApp | undefined;
  let ids: DemoIds | undefined;
  const booted = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useTestApp: the app is read before its beforeAll booted it');
    return value;
  };
  beforeAll(async () => {
    app = await bootTestApp(typeof env === 'function' ? env() : env);
    ids = await demoIds(app);
  });
  afterAll(async () => {
    try {
      if (app) await options.beforeClose?.();
    } finally {
      await app?.close();
    }
  });
  return {
    t: standIn(TEST_APP_MEMBERS, () => booted(app)),
    ids: standIn(DEMO_IDS_MEMBERS, () => booted(ids)),
  };
}
