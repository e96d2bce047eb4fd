import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { OperatorAccounts } from '../modules/auth';
import { RequestContext } from '../platform/auth/request-context';
import { TransactionRunner } from '../platform/database/transaction-runner';
import { DEMO_USERS } from './demo-data';

export const DEMO_TOKENS_FILE = 'demo-tokens.json';

/**
 * Creates one token per demo user (label "demo"), all or none, and returns them by username.
 * why through the auth module's own use case, as the command line's `token create`: the same
 * checks, rows and audit record (`TOKEN_CREATED`, made outside the API) as any other token.
 */
export async function createDemoTokens(dataSource: DataSource): Promise<Record<string, string>> {
  const accounts = OperatorAccounts.over(dataSource);
  const system = RequestContext.system();
  try {
    return await new TransactionRunner(dataSource).run(async () => {
      const tokens: Record<string, string> = {};
      for (const u of DEMO_USERS) {
        const user = await accounts.users.findByUsername(system, u.username);
        if (!user) continue;
        tokens[u.username] = (await accounts.tokens.create(system, { userId: user.id, label: 'demo' })).token;
      }
      return tokens;
    });
  } finally {
    await accounts.close();
  }
}

export function writeDemoTokens(dataDir: string, tokens: Record<string, string>): void {
  writeFileSync(join(dataDir, DEMO_TOKENS_FILE), JSON.stringify(tokens, null, 2) + '\n', { mode: 0o600 });
}

/** Where the demo tokens are kept in a data folder. */
export function demoTokensPath(dataDir: string): string {
  return join(dataDir, DEMO_TOKENS_FILE);
}

/**
 * The startup banner's lines about demo tokens: the tokens themselves only on the start that
 * created them (`created`); later starts say where they are kept (`keptIn`, when that file
 * exists). why: a banner ends up in terminal scrollback, CI logs and log collectors on every
 * restart; secrets printed once, at the moment they exist, are enough.
 */
export function demoTokenLines(created: Record<string, string> | null, keptIn: string | null): string[] {
  if (created && Object.keys(created).length > 0) {
    const lines = [
      `  Demo tokens (Authorization: Bearer <token>; printed on this first start only${keptIn ? `, kept in ${keptIn}` : ''}):`,
    ];
    for (const [user, token] of Object.entries(created)) lines.push(`    ${user.padEnd(6)} ${token}`);
    return lines;
  }
  if (keptIn && existsSync(keptIn)) return [`  Demo tokens: in ${keptIn}`];
  return [];
}
