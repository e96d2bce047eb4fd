import { Args, ID, Int, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { Access, Allow } from '../../../platform/auth/allow.decorator';
import { Ctx } from '../../../platform/auth/context.decorator';
import { RequestContext } from '../../../platform/auth/request-context';
import { ContentQueries } from '../application/content-queries';
import {
  LanguageModel,
  toLanguageModel,
  PageModel,
  PageTextModel,
  SiteModel,
  toPageModel,
  toPageTextModel,
  toSiteModel,
} from './content.model';

function intArg(name: 'languageId' | 'workspaceId') {
  return { name, type: () => Int, nullable: true, defaultValue: 0 } as const;
}

@Resolver(() => PageModel)
@Allow(Access.Authenticated)
export class PageResolver {
  constructor(private readonly content: ContentQueries) {}

  @Query(() => PageModel, {
    nullable: true,
    description: 'The page; null where it is unknown or the viewer may not show it.',
  })
  @Allow(Access.Authenticated)
  async page(
    @Ctx() ctx: RequestContext,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<PageModel | null> {
    const page = await this.content.page(ctx, id);
    return page && toPageModel(page);
  }

  @ResolveField('site', () => SiteModel, { nullable: true })
  async site(@Ctx() ctx: RequestContext, @Parent() page: PageModel): Promise<SiteModel | null> {
    const site = await this.content.site(ctx, page.view.siteId);
    return site && toSiteModel(site);
  }

  @ResolveField('title', () => String, {
    description: "The live title in the language, falling back to language 0's title, then the slug.",
  })
  async title(
    @Ctx() ctx: RequestContext,
    @Parent() page: PageModel,
    @Args(intArg('languageId')) languageId: number | null,
  ): Promise<string> {
    return this.content.title(ctx, page.view, languageId);
  }

  @ResolveField('editableLanguages', () => [LanguageModel], {
    description:
      "The page's languages the viewer may work in (start a conversation in, write): its site's languages their groups grant; language 0 for a page outside every site.",
  })
  async editableLanguages(@Ctx() ctx: RequestContext, @Parent() page: PageModel): Promise<LanguageModel[]> {
    return (await this.content.editableLanguages(ctx, page.view)).map(toLanguageModel);
  }

  @ResolveField('children', () => [PageModel], {
    description: 'The child pages the viewer may show, in tree order.',
  })
  async children(@Ctx() ctx: RequestContext, @Parent() page: PageModel): Promise<PageModel[]> {
    return (await this.content.children(ctx, page.view)).map(toPageModel);
  }

  @ResolveField('text', () => PageTextModel, {
    nullable: true,
    description:
      "The page's text in one language and workspace (0 = live; other workspaces fall back to live). Null where the page has no text in that language.",
  })
  async text(
    @Ctx() ctx: RequestContext,
    @Parent() page: PageModel,
    @Args(intArg('languageId')) languageId: number | null,
    @Args(intArg('workspaceId')) workspaceId: number | null,
  ): Promise<PageTextModel | null> {
    const text = await this.content.text(ctx, page.view, languageId, workspaceId);
    return text && toPageTextModel(text);
  }
}
