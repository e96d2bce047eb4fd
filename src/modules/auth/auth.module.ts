import { Module } from '@nestjs/common';
import { Authenticator } from '../../platform/auth/authenticator';
import { TokenAuthenticator } from './application/token-authenticator';
import { AuthRepository } from './persistence/auth.repository';
import { ViewerResolver } from './graphql/viewer.resolver';

@Module({
  providers: [
    ViewerResolver,
    AuthRepository,
    TokenAuthenticator,
    { provide: Authenticator, useExisting: TokenAuthenticator },
  ],
  exports: [Authenticator, AuthRepository],
})
export class AuthModule {}
