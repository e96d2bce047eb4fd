import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Access, Allow } from '../auth/allow.decorator';

/** How long the database may take to answer `SELECT 1` before the check counts it down. */
const PING_TIMEOUT_MS = 3000;

/**
 * `GET /health` for load balancers and orchestrators: 200 `{status:'ok', ...}` while the
 * database answers, 503 `{status:'error', ...}` when it does not. No token needed.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  @Get()
  @Allow(Access.Public)
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.health.check([() => this.database.pingCheck('database', { timeout: PING_TIMEOUT_MS })]);
  }
}
