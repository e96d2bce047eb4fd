import { Module } from '@nestjs/common';
import { ContentQueries } from './application/content-queries';
import { PagesService } from './application/pages.service';
import { PageResolver } from './graphql/page.resolver';
import { SiteResolver } from './graphql/site.resolver';
import { ContentRepository } from './persistence/content.repository';

@Module({
  providers: [ContentRepository, ContentQueries, PagesService, SiteResolver, PageResolver],
  exports: [PagesService],
})
export class ContentModule {}
