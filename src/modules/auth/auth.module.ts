import { Module } from '@nestjs/common';
import { Authenticator } from '../../platform/auth/authenticator';
import { AuditTrail } from './application/audit-trail';
import { TokenAuthenticator } from './application/token-authenticator';
import { BearerAuthenticator } from './application/bearer-authenticator';
import { IdentitySignIn } from './application/identity-sign-in';
import { IdentityTokenVerifier } from './application/identity-token-verifier';
import { IdentitiesRepository } from './persistence/identities.repository';
import { IdentityGroupMappingsService } from './application/identity-group-mappings.service';
import { IdentityGroupMappingsResolver } from './graphql/identity-group-mappings.resolver';
import { TokensService } from './application/tokens.service';
import { UsersService } from './application/users.service';
import { PrincipalsService } from './application/principals.service';
import { ApiTokensResolver } from './graphql/api-tokens.resolver';
import { UsersResolver } from './graphql/users.resolver';
import { ViewerResolver } from './graphql/viewer.resolver';
import { ApiTokensRepository } from './persistence/api-tokens.repository';
import { AuditRepository } from './persistence/audit.repository';
import { AuditResolver } from './graphql/audit.resolver';
import { AuthRepository } from './persistence/auth.repository';
import { UsersRepository } from './persistence/users.repository';

import { IdentityPagesResolver } from './graphql/identity-pages.resolver';
import { IdentityPages } from './application/identity-pages';
import { IdentityPagesRepository } from './persistence/identity-pages.repository';
@Module({
  providers: [
    ViewerResolver,
    UsersResolver,
    ApiTokensResolver,
    AuditResolver,
    IdentityPagesResolver,
    IdentityPages,
    IdentityPagesRepository,
    IdentityGroupMappingsResolver,
    IdentityGroupMappingsService,
    UsersService,
    AuditTrail,
    AuditRepository,
    PrincipalsService,
    TokensService,
    AuthRepository,
    UsersRepository,
    ApiTokensRepository,
    TokenAuthenticator,
    IdentityTokenVerifier,
    IdentitySignIn,
    IdentitiesRepository,
    BearerAuthenticator,
    { provide: Authenticator, useExisting: BearerAuthenticator },
  ],
  exports: [Authenticator, UsersService, TokensService, PrincipalsService],
})
export class AuthModule {}
