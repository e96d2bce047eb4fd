export type Grant = 'AGENT_APPROVE' | 'CHAT';
export const GRANTS: readonly Grant[] = ['AGENT_APPROVE', 'CHAT'];

/** A group's permissions as the access policies see them. */
export interface GroupPermissions {
  readonly id: number;
  readonly name: string;
  readonly grants: readonly Grant[];
  readonly showPageIds: readonly number[];
  readonly editPageIds: readonly number[];
  readonly editLanguageIds: readonly number[];
}

/** The authenticated caller of an operation, from a personal access token or an identity provider's JWT. */
export interface AuthUser {
  readonly id: number;
  readonly username: string;
  readonly displayName: string;
  readonly locale: string;
  readonly isAdmin: boolean;
  readonly groups: readonly GroupPermissions[];
  /** The union of the groups' grants. */
  readonly grants: ReadonlySet<Grant>;
  /** The token that authenticated this caller (re-checked for every subscription event). */
  readonly tokenId: string;
  /** When the JWT that authenticated this caller expires (absent for personal access tokens). */
  readonly expiresAt?: Date;
  /**
   * When the personal access token that authenticated this caller expires, where it does (set
   * at authentication; absent for a JWT, whose `expiresAt` says it).
   */
  readonly tokenExpiresAt?: Date;
}

export function hasGrant(user: AuthUser, grant: Grant): boolean {
  return user.grants.has(grant);
}
