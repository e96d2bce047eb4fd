import { Field, ID, Int, ObjectType } from '@nestjs/graphql';
import type { PageTextView, PageView, SiteLanguageView, SiteView } from '../core/content.types';

@ObjectType('Language')
export class LanguageModel {
  @Field(() => ID, {
    description: 'Unique among the languages of all sites, so client caches can key by it.',
  })
  id: string;
  @Field(() => Int, { description: "The number within its site; 0 is the site's default language." })
  languageId: number;
  @Field() isoCode: string;
  @Field() title: string;
}

@ObjectType('Site')
export class SiteModel {
  @Field(() => ID) id: string;
  @Field() name: string;
  /** Not a field: what the field resolvers work from. */
  view: SiteView;
}

@ObjectType('Page')
export class PageModel {
  @Field(() => ID) id: string;
  @Field(() => ID, { nullable: true }) parentId: string | null;
  @Field() slug: string;
  /** Not a field: what the field resolvers and permission checks work from. */
  view: PageView;
}

@ObjectType('PageText')
export class PageTextModel {
  @Field(() => Int) languageId: number;
  @Field(() => Int, { description: 'The workspace whose row answered: 0 where the text fell back to live.' })
  workspaceId: number;
  @Field() title: string;
  @Field() body: string;
  @Field(() => String, { nullable: true }) seoTitle: string | null;
  @Field(() => String, { nullable: true }) seoDescription: string | null;
}

export const toSiteModel = (s: SiteView): SiteModel => ({ id: String(s.id), name: s.name, view: s });

export const toPageModel = (p: PageView): PageModel => ({
  id: String(p.id),
  parentId: p.parentId === null ? null : String(p.parentId),
  slug: p.slug,
  view: p,
});

/** A language is a (site, number) pair; its GraphQL id names both. */
export const languageGlobalId = (siteId: number, languageId: number): string => `${siteId}:${languageId}`;

export const toLanguageModel = (l: SiteLanguageView): LanguageModel => ({
  id: languageGlobalId(l.siteId, l.languageId),
  languageId: l.languageId,
  isoCode: l.isoCode,
  title: l.title,
});

export const toPageTextModel = (t: PageTextView): PageTextModel => ({
  languageId: t.languageId,
  workspaceId: t.workspaceId,
  title: t.title,
  body: t.body,
  seoTitle: t.seoTitle,
  seoDescription: t.seoDescription,
});
