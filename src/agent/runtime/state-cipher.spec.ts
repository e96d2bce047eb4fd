import { randomBytes } from 'node:crypto';
import { StateUnreadableError } from './errors';
import { decryptState, encryptState, parseStateKey } from './state-cipher';
import type { SuspendedState } from './types';

const state: SuspendedState = {
  version: 1,
  transcript: [{ role: 'user', content: 'Make the title sharper' }],
  pending: null,
  settledResults: [],
  turn: 1,
  iterations: 2,
  providerCalls: 2,
  usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
  sentCount: 1,
  processPin: { skillId: 1 },
};

describe('state cipher', () => {
  const key = randomBytes(32);

  it('round-trips a state, with a fresh IV each time', () => {
    const a = encryptState(state, key, 'run-1');
    const b = encryptState(state, key, 'run-1');
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('sharper');
    expect(decryptState(a, key, 'run-1')).toEqual(state);
  });

  it('never hands out the same IV twice, across the blocks it draws them from', () => {
    // why: AES-GCM under one key loses its secrecy and integrity once an IV repeats; 1,000 seals
    // span three blocks of drawn randomness.
    const ivs = new Set<string>();
    for (let i = 0; i < 1_000; i++) ivs.add(encryptState(state, key, 'run-1').split('.')[1]!);
    expect(ivs.size).toBe(1_000);
    for (const iv of ivs) expect(Buffer.from(iv, 'base64url')).toHaveLength(12);
  });

  it('detects a tampered ciphertext', () => {
    const sealed = encryptState(state, key);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3] as string, 'base64url');
    body[0] = (body[0] as number) ^ 1;
    parts[3] = body.toString('base64url');
    expect(() => decryptState(parts.join('.'), key)).toThrow(StateUnreadableError);
  });

  it('detects a wrong key and a wrong run', () => {
    const sealed = encryptState(state, key, 'run-1');
    expect(() => decryptState(sealed, randomBytes(32), 'run-1')).toThrow(StateUnreadableError);
    expect(() => decryptState(sealed, key, 'run-2')).toThrow(StateUnreadableError);
  });

  it.each([
    '',
    'garbage',
    'v1.a.b.c',
    'v2.AAAA.AAAA.AAAA',
    'v1.!!.??.##',
    `v1.${'A'.repeat(16)}.${'A'.repeat(22)}.AAAA`,
  ])('detects garbage %p', (sealed) => {
    expect(() => decryptState(sealed, key)).toThrow(StateUnreadableError);
  });

  it('refuses a key that is not 32 bytes (a configuration error, not an unreadable state)', () => {
    expect(() => encryptState(state, randomBytes(16))).toThrow(TypeError);
    expect(parseStateKey(key.toString('base64')).equals(key)).toBe(true);
    expect(() => parseStateKey('c2hvcnQ=')).toThrow(TypeError);
  });
});
