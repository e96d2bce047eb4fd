import type { Client } from 'pg';
import { generateToken, hashToken } from '../../src/modules/auth/core/token';

/** Database ids of the demo data (docs/demo-data.md) a scenario refers to. */
export interface DemoIds {
  /** Configuration id by identifier (demo-editor, ...). */
  readonly configurations: Readonly<Record<string, string>>;
  /** User id by username (admin, alice, bob, ...). */
  readonly users: Readonly<Record<string, number>>;
  /** Page id by slug (`/`, `/products/widget`, ...). */
  readonly pages: Readonly<Record<string, string>>;
  /** access_group id by name (editors, approvers, ...). */
  readonly groups: Readonly<Record<string, number>>;
}

export async function demoIds(client: Client): Promise<DemoIds> {
  const configurations = await client.query<{ identifier: string; id: number }>(
    'SELECT identifier, id FROM configuration',
  );
  const users = await client.query<{ username: string; id: number }>('SELECT username, id FROM app_user');
  const pages = await client.query<{ slug: string; id: number }>(
    'SELECT slug, id FROM page WHERE site_id IS NOT NULL',
  );
  const groups = await client.query<{ name: string; id: number }>('SELECT name, id FROM access_group');
  return {
    configurations: Object.fromEntries(configurations.rows.map((r) => [r.identifier, String(r.id)])),
    users: Object.fromEntries(users.rows.map((r) => [r.username, r.id])),
    pages: Object.fromEntries(pages.rows.map((r) => [r.slug, String(r.id)])),
    groups: Object.fromEntries(groups.rows.map((r) => [r.name, r.id])),
  };
}

/**
 * `count` new API tokens for one user (label `bench`), in one INSERT: many subscribers as
 * many sessions, so nothing per token is shared between them (the per-event re-check of a
 * subscription looks its token up).
 */
export async function mintTokens(client: Client, username: string, count: number): Promise<string[]> {
  if (count <= 0) return [];
  const tokens = Array.from({ length: count }, () => generateToken());
  const r = await client.query(
    `INSERT INTO api_token (user_id, token_hash, label)
     SELECT u.id, h, 'bench' FROM app_user u, unnest($2::text[]) AS h WHERE u.username = $1`,
    [username, tokens.map(hashToken)],
  );
  if (r.rowCount !== count) throw new Error(`minted ${r.rowCount} tokens for ${username}, expected ${count}`);
  return tokens;
}
