import { Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { ContentQueries } from '../application/content-queries';
import {
  LanguageModel,
  PageModel,
  SiteModel,
  toLanguageModel,
  toPageModel,
  toSiteModel,
} from './content.model';

@Resolver(() => SiteModel)
@Allow(Access.Authenticated)
export class SiteResolver {
  constructor(private readonly content: ContentQueries) {}

  @Query(() => [SiteModel], {
    description: 'Sites with at least one page the viewer may show (admins: all).',
  })
  @Allow(Access.Authenticated)
  async sites(@Ctx() ctx: RequestContext): Promise<SiteModel[]> {
    return (await this.content.sites(ctx)).map(toSiteModel);
  }

  @ResolveField('rootPage', () => PageModel, {
    description:
      "The site's root page; for a viewer who may not show it, the site's topmost page they may show.",
  })
  async rootPage(@Ctx() ctx: RequestContext, @Parent() site: SiteModel): Promise<PageModel> {
    return toPageModel(await this.content.rootPage(ctx, site.view));
  }

  @ResolveField('languages', () => [LanguageModel])
  async languages(@Ctx() ctx: RequestContext, @Parent() site: SiteModel): Promise<LanguageModel[]> {
    return (await this.content.languages(ctx, site.view)).map(toLanguageModel);
  }
}
