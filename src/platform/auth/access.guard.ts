import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { GqlExecutionContext } from '@nestjs/graphql';
import { Refusal } from '../../common/refusal';
import { Access, ALLOW_KEY } from './allow.decorator';
import { hasGrant } from './auth-user';
import { RequestContext } from './request-context';

/** The GraphQL context every resolver receives. */
export interface GqlContext {
  ctx: RequestContext;
}

/**
 * The global guard. It fails closed: an operation with no `@Allow` rule is refused.
 * Authentication itself happens when the GraphQL context is built (HTTP 401, ws 4401).
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const rules = this.reflector.getAllAndOverride<Access[] | undefined>(ALLOW_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!rules || rules.length === 0) {
      throw new Refusal('FORBIDDEN', 'This operation declares no access rule');
    }
    if (context.getType<string>() !== 'graphql') {
      if (rules.includes(Access.Public)) return true;
      throw new Refusal('FORBIDDEN', 'Not available over this transport');
    }
    const gql = GqlExecutionContext.create(context).getContext<GqlContext>();
    const user = gql.ctx?.user;
    if (!user) throw new Refusal('UNAUTHENTICATED', 'Authentication required');
    const admitted = rules.some((rule) => {
      switch (rule) {
        case Access.Public:
          return false;
        case Access.Authenticated:
          return true;
        case Access.Admin:
          return user.isAdmin;
        case Access.AgentApprove:
          return user.isAdmin || hasGrant(user, 'AGENT_APPROVE');
        case Access.Chat:
          return user.isAdmin || hasGrant(user, 'CHAT');
      }
    });
    if (!admitted) {
      if (rules.length === 1 && rules[0] === Access.Chat) {
        throw new Refusal('CHAT_NOT_ALLOWED', 'The chat needs the CHAT grant');
      }
      throw new Refusal('FORBIDDEN', 'You may not perform this operation');
    }
    return true;
  }
}
