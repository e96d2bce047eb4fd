import { Args, ID, Mutation, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { parseSerialId, parseUuid } from '../../../common/ids';
import { TokensService } from '../application/tokens.service';
import { ApiTokenCreatedModel } from './api-token.model';
import { CreateApiTokenArgs } from './identity.inputs';

@Resolver(() => ApiTokenCreatedModel)
export class ApiTokensResolver {
  constructor(private readonly tokens: TokensService) {}

  @Mutation(() => ApiTokenCreatedModel, { description: 'Admin for anyone; a user for themselves.' })
  @Allow(Access.Authenticated)
  createApiToken(
    @Ctx() ctx: RequestContext,
    @Args() args: CreateApiTokenArgs,
  ): Promise<ApiTokenCreatedModel> {
    const userId = parseSerialId(args.userId, 'userId');
    return this.tokens.create(ctx, { userId, label: args.label, expiresAt: args.expiresAt });
  }

  @Mutation(() => Boolean, { description: 'Admin: any token; a user: their own. Idempotent.' })
  @Allow(Access.Authenticated)
  revokeApiToken(
    @Ctx() ctx: RequestContext,
    @Args('tokenId', { type: () => ID }) tokenId: string,
  ): Promise<boolean> {
    return this.tokens.revoke(ctx, parseUuid(tokenId, 'tokenId'));
  }
}
