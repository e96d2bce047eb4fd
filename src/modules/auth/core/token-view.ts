import type { UserView } from './identity';

/** A personal access token as listed: everything but its hash. */
export interface TokenView {
  readonly id: string;
  readonly label: string;
  readonly owner: UserView;
  /** Who created it through the API; null when the command line (or the demo seed) did. */
  readonly createdBy: UserView | null;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
}
