import { Module } from '@nestjs/common';
import { AuthModule } from '../auth';
import { SkillsModule } from '../skills';
import { ConfigurationsAdminService } from './application/configurations-admin.service';
import { ConfigurationsService } from './application/configurations.service';
import { ConfigurationsResolver } from './graphql/configurations.resolver';
import { ConfigurationsRepository } from './persistence/configurations.repository';

@Module({
  imports: [AuthModule, SkillsModule],
  providers: [
    ConfigurationsRepository,
    ConfigurationsService,
    ConfigurationsAdminService,
    ConfigurationsResolver,
  ],
  exports: [ConfigurationsService, SkillsModule],
})
export class ConfigurationsModule {}
