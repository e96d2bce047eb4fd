import type { AuthUser } from '../../../platform/auth/auth-user';

/** What an audit record says happened. */
export type AuditAction = 'USER_CREATED' | 'TOKEN_CREATED' | 'TOKEN_REVOKED' | 'TOKENS_REVOKED';

/**
 * How the change was made: through the API by a user, or outside it by an operator with access to
 * the server (the command line, or the demo data loaded at an embedded server's first start).
 */
export type AuditVia = 'api' | 'cli';

/** Who made a change: a user through one of their tokens, or nobody (outside the API). */
export interface AuditActor {
  readonly userId: number;
  readonly username: string;
  readonly tokenId: string;
}

/** An audit record to write. */
export interface AuditEntry {
  readonly via: AuditVia;
  readonly actor: AuditActor | null;
  readonly action: AuditAction;
  readonly subjectUserId: number | null;
  readonly details: Readonly<Record<string, unknown>>;
}

/** An audit record as read back. */
export interface AuditRecord extends AuditEntry {
  readonly id: string;
  readonly at: Date;
}

/**
 * The actor of a change made by `user` (null: the system, outside the API: the command line or
 * the demo seed; the API always has an authenticated user).
 */
export function auditActor(user: AuthUser | null): { via: AuditVia; actor: AuditActor | null } {
  if (!user) return { via: 'cli', actor: null };
  return { via: 'api', actor: { userId: user.id, username: user.username, tokenId: user.tokenId } };
}

/** The most audit records one query returns. */
export const AUDIT_LIST_MAX = 500;
