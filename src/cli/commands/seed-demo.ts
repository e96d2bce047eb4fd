import { createDemoTokens, DEMO_TOKENS_FILE, writeDemoTokens } from '../../demo/demo-tokens';
import { seedDemo } from '../../demo/seed-demo';
import type { CliDatabase } from '../database';

/**
 * Loads the demo data set (idempotent). As at the embedded server's first start, the first
 * load into the embedded database also creates a token per demo user and writes them to
 * DATA_DIR/demo-tokens.json; a second run changes nothing.
 */
export async function seedDemoData(db: CliDatabase, dataDir: string): Promise<string[]> {
  const { created } = await seedDemo(db.dataSource);
  if (!created) return [`The demo data is already present in ${db.where}; nothing changed.`];
  const lines = [`Loaded the demo data into ${db.where}.`];
  if (!db.embedded) {
    lines.push('Create tokens for the demo users with: npm run cli -- token create --user alice');
    return lines;
  }
  const tokens = await createDemoTokens(db.dataSource);
  writeDemoTokens(dataDir, tokens);
  lines.push(`Demo tokens (also in ${dataDir}/${DEMO_TOKENS_FILE}):`);
  for (const [user, token] of Object.entries(tokens)) lines.push(`  ${user.padEnd(6)} ${token}`);
  return lines;
}
