import { Args, ID, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { parseSerialId, parseUuid } from '../../../common/ids';
import { TokensService } from '../application/tokens.service';
import type { TokenView } from '../core/token-view';
import { ApiTokenCreatedModel, ApiTokenModel } from './api-token.model';
import { CreateApiTokenArgs } from './identity.inputs';
import { toUserModel } from './user.mapper';

@Resolver(() => ApiTokenCreatedModel)
export class ApiTokensResolver {
  constructor(private readonly tokens: TokensService) {}

  @Mutation(() => ApiTokenCreatedModel, {
    description:
      'For oneself only (FORBIDDEN for an admin naming another user: such tokens come from the command line). A token may not outlive the token that creates it.',
  })
  @Allow(Access.Authenticated)
  createApiToken(
    @Ctx() ctx: RequestContext,
    @Args() args: CreateApiTokenArgs,
  ): Promise<ApiTokenCreatedModel> {
    const userId = parseSerialId(args.userId, 'userId');
    return this.tokens.create(ctx, { userId, label: args.label, expiresAt: args.expiresAt });
  }

  @Query(() => [ApiTokenModel], {
    description: "A user's tokens, newest first (revoked and expired included): one's own; admins: anyone's.",
  })
  @Allow(Access.Authenticated)
  async apiTokens(
    @Ctx() ctx: RequestContext,
    @Args('userId', { type: () => ID, nullable: true, description: 'Default: the viewer.' })
    userId: string | null,
  ): Promise<ApiTokenModel[]> {
    const id = userId === null || userId === undefined ? null : parseSerialId(userId, 'userId');
    return (await this.tokens.list(ctx, id)).map(toApiTokenModel);
  }

  @Mutation(() => Boolean, { description: 'Admin: any token; a user: their own. Idempotent.' })
  @Allow(Access.Authenticated)
  revokeApiToken(
    @Ctx() ctx: RequestContext,
    @Args('tokenId', { type: () => ID }) tokenId: string,
  ): Promise<boolean> {
    return this.tokens.revoke(ctx, parseUuid(tokenId, 'tokenId'));
  }

  @Mutation(() => Int, {
    description:
      "Revokes every token of a user not yet revoked; how many. Admin: anyone's; a user: their own.",
  })
  @Allow(Access.Authenticated)
  revokeApiTokens(
    @Ctx() ctx: RequestContext,
    @Args('userId', { type: () => ID }) userId: string,
  ): Promise<number> {
    return this.tokens.revokeAll(ctx, parseSerialId(userId, 'userId'));
  }
}

export function toApiTokenModel(t: TokenView): ApiTokenModel {
  return {
    id: t.id,
    label: t.label,
    owner: toUserModel(t.owner),
    createdBy: t.createdBy ? toUserModel(t.createdBy) : null,
    createdAt: t.createdAt,
    lastUsedAt: t.lastUsedAt,
    expiresAt: t.expiresAt,
    revokedAt: t.revokedAt,
  };
}
