/** The fewest distinct byte values a 32-byte state key may have (random keys have about 30). */
export const STATE_KEY_MIN_DISTINCT_BYTES = 16;

/** The longest repeating unit looked for: a key made of a short block repeated is refused. */
const MAX_PERIOD = 16;

/**
 * Null when a state encryption key looks random, else why it does not. The checks catch keys
 * a person typed or copied from an example (all zeros, `aaaa...`, a counting sequence, a short
 * block repeated), not weak randomness: a key from `openssl rand -base64 32` passes with
 * overwhelming probability (fewer than 16 distinct values in 32 random bytes is far rarer than
 * one in 10^20).
 */
export function stateKeyWeakness(key: Buffer): string | null {
  const distinct = new Set(key).size;
  if (distinct < STATE_KEY_MIN_DISTINCT_BYTES) {
    return `it has only ${distinct} distinct byte values (a random key has about 30; at least ${STATE_KEY_MIN_DISTINCT_BYTES} are required)`;
  }
  for (let period = 1; period <= MAX_PERIOD && period < key.length; period++) {
    if (repeatsEvery(key, period)) return `it repeats a block of ${period} bytes`;
  }
  if (arithmetic(key)) return 'its bytes form a counting sequence';
  return null;
}

/** The message a boot refusal shows for a weak key from `source` (a variable or a file). */
export function weakStateKeyMessage(source: string, why: string): string {
  return (
    `${source} is not a usable key: ${why}. It must be 32 random bytes, base64-encoded; ` +
    'generate one with `openssl rand -base64 32`. Changing the key makes waiting runs unreadable, ' +
    'so settle or cancel them first if this key was ever in use.'
  );
}

function repeatsEvery(key: Buffer, period: number): boolean {
  for (let i = period; i < key.length; i++) if (key[i] !== key[i - period]) return false;
  return true;
}

function arithmetic(key: Buffer): boolean {
  const step = ((key[1] ?? 0) - (key[0] ?? 0) + 256) % 256;
  for (let i = 2; i < key.length; i++) {
    if (((key[i] ?? 0) - (key[i - 1] ?? 0) + 256) % 256 !== step) return false;
  }
  return true;
}
