import { createHash } from 'node:crypto';

/** Environment the global setup hands to every test file. */
export const ENV_TEMPLATE_DB = 'CS_TEST_TEMPLATE_DB';
export const ENV_SNAPSHOT = 'CS_TEST_PGLITE_SNAPSHOT';
export const ENV_TOKENS = 'CS_TEST_DEMO_TOKENS';
/** A fixed key for tests only: 32 bytes that pass the boot check for low-entropy keys, base64. */
export const TEST_STATE_KEY = createHash('sha256').update('countersign test state key').digest('base64');

export const usingPostgres = (): boolean => !!process.env.DATABASE_URL;

export function adminUrl(): string {
  return process.env.DATABASE_URL ?? '';
}

/** The same server URL with another database name. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
