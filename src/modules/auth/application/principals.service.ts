import { Injectable } from '@nestjs/common';
import { AuthUser } from '../../../platform/auth/auth-user';
import { mappedJoin, type JoinedRead } from '../../../platform/database/joined-read';
import { AuthRepository, toAuthUser } from '../persistence/auth.repository';

/**
 * Loads a user with their permissions to act as them without a token: the agent's tools run
 * as the run's owner, never as the decider. The result's `tokenId` is empty.
 */
@Injectable()
export class PrincipalsService {
  constructor(private readonly repository: AuthRepository) {}

  async load(userId: number): Promise<AuthUser | null> {
    const user = await this.repository.findUserWithGroups(userId);
    return user ? toAuthUser(user, '') : null;
  }

  /**
   * A user with their permissions read in another module's statement, joined on the user id
   * that statement holds (see JoinedRead): what `load` answers, without a round trip of its own.
   */
  joinedById(): JoinedRead<AuthUser> {
    return mappedJoin(this.repository.joinedUserWithGroups, (user) => toAuthUser(user, ''));
  }

  /** Several users by id (one statement); unknown ids are absent. */
  async loadMany(userIds: readonly number[]): Promise<Map<number, AuthUser>> {
    const users = await this.repository.findUsersWithGroups([...new Set(userIds)]);
    return new Map(users.map((u) => [u.id, toAuthUser(u, '')]));
  }

  /**
   * The people who may possibly decide a run of this owner (the owner, admins, AGENT_APPROVE
   * holders), at most `limit`; the caller judges each against the run (runAccess, the inbox).
   */
  async candidateDeciders(ownerId: number, limit: number): Promise<AuthUser[]> {
    return (await this.repository.findDecidersFor(ownerId, limit)).map((u) => toAuthUser(u, ''));
  }
}
