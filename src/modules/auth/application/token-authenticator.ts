import { Injectable } from '@nestjs/common';
import { AuthUser } from '../../../platform/auth/auth-user';
import { Authenticator } from '../../../platform/auth/authenticator';
import { hashToken, parseBearer, tokenUsable } from '../core/token';
import { AuthRepository, toAuthUser } from '../persistence/auth.repository';

/** Authenticates personal access tokens: hashed lookup, revocation and expiry. */
@Injectable()
export class TokenAuthenticator extends Authenticator {
  constructor(private readonly repository: AuthRepository) {
    super();
  }

  async authenticate(authorization: string | undefined | null): Promise<AuthUser | null> {
    const token = parseBearer(authorization);
    if (!token) return null;
    const stored = await this.repository.findTokenByHash(hashToken(token));
    const now = new Date();
    if (!stored?.user || !tokenUsable(stored, now)) return null;
    await this.repository.touchToken(stored.id, now);
    return toAuthUser(stored.user, stored.id);
  }

  async refresh(user: AuthUser): Promise<AuthUser | null> {
    const stored = await this.repository.findTokenWithUser(user.tokenId);
    if (!stored?.user || !tokenUsable(stored, new Date())) return null;
    return toAuthUser(stored.user, stored.id);
  }
}
