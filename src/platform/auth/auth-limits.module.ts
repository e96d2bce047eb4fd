import { Global, Module } from '@nestjs/common';
import { AuthFailureLimiter } from './auth-failures';

/** The failed-authentication limiter, one per process, for the HTTP context and graphql-ws alike. */
@Global()
@Module({ providers: [AuthFailureLimiter], exports: [AuthFailureLimiter] })
export class AuthLimitsModule {}
