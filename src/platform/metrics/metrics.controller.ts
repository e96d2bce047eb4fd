import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Access, Allow } from '../auth/allow.decorator';
import { PrometheusMetrics } from './prometheus-metrics';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Whether the request may scrape: always without METRICS_TOKEN, else with exactly that bearer token. */
export function scrapeAllowed(authorization: string | undefined, token: string | null): boolean {
  if (token === null) return true;
  const given = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
  // why: digests of equal length, compared in constant time, so timing tells nothing of the token.
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

/**
 * `GET /metrics` in Prometheus' text format (only where METRICS_ENABLED, the default). With
 * METRICS_TOKEN set, a scrape without that bearer token gets 401 and no figure.
 */
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: PrometheusMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Allow(Access.Public)
  async scrape(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!scrapeAllowed(req.headers.authorization, this.config.metricsToken)) {
      res.status(401).setHeader('www-authenticate', 'Bearer');
      res.type('text/plain').send('A valid bearer token (METRICS_TOKEN) is required\n');
      return;
    }
    const body = await this.metrics.render();
    res.setHeader('content-type', this.metrics.contentType);
    res.send(body);
  }
}
