import { randomUUID } from 'node:crypto';
import { AuthUser } from './auth-user';
import { forbidden } from '../../common/refusal';

/**
 * Who asks, and under which correlation id. Passed explicitly as the first argument of every
 * application service method.
 */
export class RequestContext {
  constructor(
    readonly user: AuthUser | null,
    readonly correlationId: string = randomUUID(),
    /** 'chat' when the operation comes from the conversation surface. */
    readonly surface: 'api' | 'chat' = 'api',
  ) {}

  /** The authenticated user; the global guard has made sure there is one. */
  get viewer(): AuthUser {
    if (!this.user) throw forbidden('Authentication required');
    return this.user;
  }

  get isAdmin(): boolean {
    return this.user?.isAdmin === true;
  }

  withSurface(surface: 'api' | 'chat'): RequestContext {
    return new RequestContext(this.user, this.correlationId, surface);
  }

  /** A context for work the system does on its own (workers, seed). */
  static system(): RequestContext {
    return new RequestContext(null);
  }
}
