import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateKeyWeakness, weakStateKeyMessage } from '../../config/state-key-quality';
import { secureDataDir } from './data-dir';

/** Thrown at boot for a key file that does not hold a usable key. */
export class StateKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateKeyError';
  }
}

/**
 * The key that encrypts suspended run state. Embedded mode without STATE_ENCRYPTION_KEY
 * generates one into the data directory (made private first) on first start and reuses it
 * afterwards. A configured key was checked by `loadConfig`; a key file is checked here, as it
 * may have been written by hand: a weak one refuses the start with `StateKeyError`.
 */
export function resolveStateKey(configured: string | null, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  secureDataDir(dataDir);
  const path = join(dataDir, 'state-encryption.key');
  if (!existsSync(path)) writeFileSync(path, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new StateKeyError(`${path} does not hold a 32-byte base64 key`);
  const weakness = stateKeyWeakness(key);
  if (weakness) throw new StateKeyError(weakStateKeyMessage(path, weakness));
  return key;
}
