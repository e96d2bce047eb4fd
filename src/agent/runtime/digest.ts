import { timingSafeEqual } from 'node:crypto';
import { sha256OfCanonical } from '../../common/canonical-json';
import type { InputRequest, PauseKind, PendingCall } from './types';

/** What a turn digest covers (a `PendingTurn` without its digest and number). */
export interface DigestSubject {
  readonly kind: PauseKind;
  readonly calls: readonly PendingCall[];
  readonly inputRequest?: Pick<InputRequest, 'toolName' | 'schema'>;
}

/**
 * The turn digest (docs/decisions.md): SHA-256 hex over the canonical JSON of the pending calls
 * (id, tool name, arguments, preview) for an approval pause, and of
 * `{calls, inputToolName, inputSchema}` for an input pause. The one function used both to
 * show the digest and to check the digest a decision carries.
 */
export function turnDigest(subject: DigestSubject): string {
  const calls = subject.calls.map((c) => ({
    id: c.callId,
    toolName: c.toolName,
    arguments: c.arguments,
    preview: c.preview,
  }));
  if (subject.kind === 'APPROVAL') return sha256OfCanonical(calls);
  return sha256OfCanonical({
    calls,
    inputToolName: subject.inputRequest?.toolName ?? null,
    inputSchema: subject.inputRequest?.schema ?? null,
  });
}

/**
 * Compares a digest a client sent with the expected one in constant time. A missing or
 * differently sized value is simply not equal.
 */
export function digestsEqual(expected: string, given: string | null | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  if (a.length !== b.length) {
    // why: still spend a comparison so the length mismatch costs about the same time.
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}
