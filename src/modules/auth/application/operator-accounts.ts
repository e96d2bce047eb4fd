import type { DataSource } from 'typeorm';
import { TransactionRunner } from '../../../platform/database/transaction-runner';
import { EventBus } from '../../../platform/pubsub/event-bus';
import { ApiTokensRepository } from '../persistence/api-tokens.repository';
import { AuditRepository } from '../persistence/audit.repository';
import { AuthRepository } from '../persistence/auth.repository';
import { IdentitiesRepository } from '../persistence/identities.repository';
import { UsersRepository } from '../persistence/users.repository';
import { AuditTrail } from './audit-trail';
import { IdentityGroupMappingsService } from './identity-group-mappings.service';
import { TokenAuthenticator } from './token-authenticator';
import { TokensService } from './tokens.service';
import { UsersService } from './users.service';

/**
 * The auth module's use cases for the command line (the `user`, `token` and `group-map`
 * commands, and the demo users' tokens): the API's own services, over a data source of their own outside the Nest
 * container, called as the system (`RequestContext.system()`, audited `via: 'cli'`). So a user
 * or a token made on the command line passes the same checks and writes the same rows and
 * audit records as one made through the API.
 *
 * why an event bus of its own (in memory): the servers' bus is not the command line's to
 * publish on. A revocation reaches running servers through the database instead: the triggers'
 * NOTIFY makes them drop their cached look-ups and close the token's connections.
 */
export class OperatorAccounts {
  private constructor(
    readonly users: UsersService,
    readonly tokens: TokensService,
    readonly groupMappings: IdentityGroupMappingsService,
    private readonly bus: EventBus,
  ) {}

  static over(dataSource: DataSource): OperatorAccounts {
    const tx = new TransactionRunner(dataSource);
    const audit = new AuditTrail(new AuditRepository(dataSource), tx);
    const bus = new EventBus({ redisUrl: null });
    const auth = new AuthRepository(dataSource);
    // why: never started (no LISTEN of its own): it only forgets what a revocation ends.
    const authenticator = new TokenAuthenticator(auth, bus, { databaseUrl: null });
    return new OperatorAccounts(
      new UsersService(tx, new UsersRepository(dataSource), audit),
      new TokensService(tx, new ApiTokensRepository(dataSource), authenticator, auth, bus, audit),
      new IdentityGroupMappingsService(tx, new IdentitiesRepository(dataSource)),
      bus,
    );
  }

  async close(): Promise<void> {
    await this.bus.onApplicationShutdown();
  }
}
