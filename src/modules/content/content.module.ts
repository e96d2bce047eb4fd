import { Module } from '@nestjs/common';
import { ContentQueries } from './application/content-queries';
import { PageAccessLookup } from './application/page-access-lookup';
import { PagesService } from './application/pages.service';
import { PageResolver } from './graphql/page.resolver';
import { SiteResolver } from './graphql/site.resolver';
import { ContentRepository } from './persistence/content.repository';

@Module({
  providers: [ContentRepository, ContentQueries, PagesService, PageAccessLookup, SiteResolver, PageResolver],
  exports: [PagesService, PageAccessLookup],
})
export class ContentModule {}
