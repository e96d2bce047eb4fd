import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { generateToken, hashToken } from '../modules/auth/core/token';
import { DEMO_USERS } from './demo-data';

export const DEMO_TOKENS_FILE = 'demo-tokens.json';

/** Creates one token per demo user (label "demo") and returns them by username. */
export async function createDemoTokens(dataSource: DataSource): Promise<Record<string, string>> {
  const tokens: Record<string, string> = {};
  await dataSource.transaction(async (m) => {
    for (const u of DEMO_USERS) {
      const token = generateToken();
      const rows: unknown[] = await m.query(
        `INSERT INTO api_token (user_id, token_hash, label)
         SELECT id, $2, 'demo' FROM app_user WHERE username = $1 RETURNING id`,
        [u.username, hashToken(token)],
      );
      if (rows.length === 1) tokens[u.username] = token;
    }
  });
  return tokens;
}

export function writeDemoTokens(dataDir: string, tokens: Record<string, string>): void {
  writeFileSync(join(dataDir, DEMO_TOKENS_FILE), JSON.stringify(tokens, null, 2) + '\n', { mode: 0o600 });
}

export function readDemoTokens(dataDir: string): Record<string, string> | null {
  const path = join(dataDir, DEMO_TOKENS_FILE);
  if (!existsSync(path)) return null;
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
}
