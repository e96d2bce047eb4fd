import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { StateUnreadableError } from './errors';
import type { SuspendedState } from './types';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/**
 * IVs are sliced off a block drawn from the CSPRNG, each slice handed out once. why: a
 * `randomBytes` call per seal cost more than the seal's cipher work (a call into OpenSSL, a
 * buffer, and on these machines a system call); one block serves 341 seals. Node's own
 * `randomUUID` buffers its entropy the same way.
 */
const IV_BLOCK_BYTES = IV_BYTES * 341;
let ivBlock = Buffer.alloc(0);
let ivOffset = 0;

function freshIv(): Buffer {
  if (ivOffset + IV_BYTES > ivBlock.length) {
    ivBlock = randomBytes(IV_BLOCK_BYTES);
    ivOffset = 0;
  }
  const iv = ivBlock.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

/**
 * Seals any JSON value with AES-256-GCM: `v1.<iv>.<tag>.<ciphertext>`, each part base64url, a
 * fresh random 12-byte IV each time. `associatedData` (use the run id) binds the ciphertext to
 * its run: a value copied onto another run does not open.
 */
export function sealJson(value: unknown, key: Buffer, associatedData = ''): string {
  assertKey(key);
  const iv = freshIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, b64(iv), b64(tag), b64(body)].join('.');
}

/**
 * Opens a value sealed by `sealJson`. Anything that fails authentication (tampering, wrong
 * key, wrong run) or decoding throws `StateUnreadableError`; the caller refuses with
 * STATE_UNREADABLE and the run keeps waiting. The caller checks the value's shape.
 */
export function openJson(sealed: string, key: Buffer, associatedData = ''): unknown {
  assertKey(key);
  const plain = openSealed(sealed, key, associatedData);
  try {
    return JSON.parse(plain) as unknown;
  } catch {
    throw new StateUnreadableError('The suspended state is not valid JSON');
  }
}

/** Seals a suspended state (see `sealJson`). */
export function encryptState(state: SuspendedState, key: Buffer, associatedData = ''): string {
  return sealJson(state, key, associatedData);
}

/** Opens a suspended state (see `openJson`); an unknown shape is a `StateUnreadableError` too. */
export function decryptState(sealed: string, key: Buffer, associatedData = ''): SuspendedState {
  const state = openJson(sealed, key, associatedData);
  if (!isSuspendedState(state)) throw new StateUnreadableError('The suspended state has an unknown shape');
  return state;
}

/** Reads a `STATE_ENCRYPTION_KEY` (base64 or base64url of 32 bytes); throws on another size. */
export function parseStateKey(encoded: string): Buffer {
  const key = Buffer.from(encoded.trim(), 'base64');
  assertKey(key);
  return key;
}

function openSealed(sealed: string, key: Buffer, associatedData: string): string {
  const parts = typeof sealed === 'string' ? sealed.split('.') : [];
  if (parts.length !== 4 || parts[0] !== VERSION) {
    throw new StateUnreadableError('The suspended state has an unknown format');
  }
  const [iv, tag, body] = [fromB64(parts[1]), fromB64(parts[2]), fromB64(parts[3])];
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new StateUnreadableError('The suspended state has an unknown format');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    throw new StateUnreadableError('The suspended state failed authentication');
  }
}

/** A light shape check of a decoded suspended state. */
export function isSuspendedState(value: unknown): value is SuspendedState {
  if (value === null || typeof value !== 'object') return false;
  const s = value as Record<string, unknown>;
  return s.version === 1 && Array.isArray(s.transcript) && typeof s.iterations === 'number';
}

function assertKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) {
    throw new TypeError(`The state encryption key must be ${KEY_BYTES} bytes`);
  }
}

function b64(buf: Buffer): string {
  return buf.toString('base64url');
}

function fromB64(part: string | undefined): Buffer {
  if (part === undefined || !/^[A-Za-z0-9_-]*$/.test(part)) return Buffer.alloc(0);
  return Buffer.from(part, 'base64url');
}
