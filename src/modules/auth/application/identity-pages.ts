import { Injectable } from '@nestjs/common';
import { cursorTimestamp, decodeCursor, encodeCursor } from '../../../common/cursor';
import { parseUuid } from '../../../common/ids';
import { forbidden, notFound } from '../../../common/refusal';
import type { RequestContext } from '../../../platform/auth/request-context';
import type { UserView } from '../core/identity';
import { mayAdministerUsers, mayManageTokensOf } from '../core/token-access.policy';
import type { TokenView } from '../core/token-view';
import { IdentityPagesRepository } from '../persistence/identity-pages.repository';
import { pageSize } from '../../../common/page-size';

export interface IdentityPage<T> {
  readonly edges: ReadonlyArray<{ readonly cursor: string; readonly node: T }>;
  readonly hasNextPage: boolean;
}

const USERS = 'users';
const TOKENS = 'tokens';
const MAX_PAGE = 200;

/** Cursor pages of users (admins) and of a user's tokens (one's own; admins anyone's). */
@Injectable()
export class IdentityPages {
  constructor(private readonly repository: IdentityPagesRepository) {}

  async users(ctx: RequestContext, first: number, after: string | null): Promise<IdentityPage<UserView>> {
    if (!mayAdministerUsers(ctx.user)) throw forbidden('Only admins may administer users');
    const afterId = after ? Number(decodeCursor(USERS, after, ['number'])[0]) : null;
    const limit = pageSize(first, MAX_PAGE);
    const rows = await this.repository.users(afterId, limit + 1);
    return {
      edges: rows.slice(0, limit).map((user) => ({ cursor: encodeCursor(USERS, [user.id]), node: user })),
      hasNextPage: rows.length > limit,
    };
  }

  async tokens(
    ctx: RequestContext,
    userId: number | null,
    first: number,
    after: string | null,
  ): Promise<IdentityPage<TokenView>> {
    const owner = userId ?? ctx.viewer.id;
    if (!mayManageTokensOf(ctx.user, owner)) throw notFound('No such user');
    const key = after ? tokenKey(owner, after) : null;
    const limit = pageSize(first, MAX_PAGE);
    const rows = await this.repository.tokens(owner, limit + 1, key);
    return {
      edges: rows
        .slice(0, limit)
        .map((row) => ({ cursor: encodeCursor(TOKENS, [owner, row.at, row.token.id]), node: row.token })),
      hasNextPage: rows.length > limit,
    };
  }
}

function tokenKey(owner: number, cursor: string): { at: string; id: string } {
  const [user, at, id] = decodeCursor(TOKENS, cursor, ['number', 'string', 'string']);
  if (user !== owner) throw notFound('No such token page for this user');
  return { at: cursorTimestamp(at!), id: parseUuid(String(id), 'after') };
}
