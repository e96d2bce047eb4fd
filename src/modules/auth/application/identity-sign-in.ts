import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import type { AuthUser } from '../../../platform/auth/auth-user';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { groupValuesOf, profileOf, usernameCandidates } from '../core/identity-claims';
import { AuthRepository, toAuthUser } from '../persistence/auth.repository';
import { IdentitiesRepository } from '../persistence/identities.repository';
import type { VerifiedIdentityToken } from './identity-token-verifier';

/** Usernames tried (`ada`, `ada-2`, …) before a random suffix is used. */
const USERNAME_TRIES = 20;

/**
 * Maps a verified identity token to a user: by issuer and subject, created on the first
 * sign-in when `OIDC_AUTO_CREATE_USERS` allows it. The user's groups and admin flag follow the
 * token's groups claim through the admins' mapping on every sign-in: an unmapped value grants
 * nothing, and admin rights come only from a mapping that says so. Writes only when something
 * changed, so an ordinary request stays read-only.
 */
@Injectable()
export class IdentitySignIn {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tx: TransactionRunner,
    private readonly identities: IdentitiesRepository,
    private readonly auth: AuthRepository,
  ) {}

  /** The user the token signs in (and whether it was created now), or null when none may be. */
  async signIn(
    token: VerifiedIdentityToken,
    tokenId: string,
  ): Promise<{ user: AuthUser; created: boolean } | null> {
    const settings = this.config.oidc;
    if (!settings) return null;
    const { iss, sub } = token.claims;
    const mapped = await this.identities.mappedFor(groupValuesOf(token.claims, settings.groupsClaim));
    let userId = await this.identities.findUserIdBySubject(iss, sub);
    const created = userId === null;
    if (userId === null) {
      if (!settings.autoCreateUsers) return null;
      userId = await this.create(token);
    }
    let user = await this.auth.findUserWithGroups(userId);
    if (!user) return null;
    const held = (user.groups ?? []).map((g) => g.id).sort((a, b) => a - b);
    if (user.isAdmin !== mapped.admin || held.join() !== mapped.groupIds.join()) {
      await this.tx.run(() => this.identities.syncMembership(user!.id, mapped.groupIds, mapped.admin));
      user = await this.auth.findUserWithGroups(userId);
      if (!user) return null;
    }
    return { user: { ...toAuthUser(user, tokenId), expiresAt: token.expiresAt }, created };
  }

  /** Creates the user behind a first sign-in under the first free username. */
  private async create(token: VerifiedIdentityToken): Promise<number> {
    const { iss, sub } = token.claims;
    const profile = profileOf(token.claims);
    const names = [
      ...usernameCandidates(profile.username, USERNAME_TRIES),
      `${profile.username}-${Math.random().toString(36).slice(2, 8)}`,
    ];
    return this.tx.run(async () => {
      for (const username of names) {
        const id = await this.identities.insertLinkedUser(iss, sub, profile, username);
        if (id !== null) return id;
        // why: the conflict may be the link itself: a sign-in at the same moment created the user.
        const linked = await this.identities.findUserIdBySubject(iss, sub);
        if (linked !== null) return linked;
      }
      throw new Error(`no free username for ${profile.username}`);
    });
  }
}
