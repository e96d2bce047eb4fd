import { SetMetadata } from '@nestjs/common';

/** Who may call an operation; the global guard refuses operations that declare none. */
export enum Access {
  /** No token needed (health check, GraphiQL page). Never on a GraphQL operation. */
  Public = 'Public',
  /** Any authenticated user; the use case checks the resource itself. */
  Authenticated = 'Authenticated',
  Admin = 'Admin',
  AgentApprove = 'Grant:AGENT_APPROVE',
  Chat = 'Grant:CHAT',
}

export const ALLOW_KEY = 'countersign:allow';

/** Declares the coarse access rule of a resolver or controller method. Any listed rule admits. */
export const Allow = (...rules: Access[]): MethodDecorator & ClassDecorator => SetMetadata(ALLOW_KEY, rules);
