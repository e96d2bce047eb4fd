import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The key that encrypts suspended run state. Embedded mode without STATE_ENCRYPTION_KEY
 * generates one into the data directory on first start and reuses it afterwards.
 */
export function resolveStateKey(configured: string | null, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'state-encryption.key');
  if (!existsSync(path)) writeFileSync(path, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
  return key;
}
