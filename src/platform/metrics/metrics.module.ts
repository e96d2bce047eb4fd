import { DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { Metrics, NoMetrics } from './metrics';
import { MetricsController } from './metrics.controller';
import { PrometheusMetrics } from './prometheus-metrics';

/** The `Metrics` port for every module, and `GET /metrics` where METRICS_ENABLED. */
@Module({})
export class MetricsModule {
  static forRoot(config: Pick<AppConfig, 'metricsEnabled'>): DynamicModule {
    if (!config.metricsEnabled) return MetricsModule.off();
    return {
      module: MetricsModule,
      global: true,
      controllers: [MetricsController],
      providers: [PrometheusMetrics, { provide: Metrics, useExisting: PrometheusMetrics }],
      exports: [Metrics],
    };
  }

  /** No metrics (a worker process, which serves no HTTP): the port records nothing. */
  static off(): DynamicModule {
    return {
      module: MetricsModule,
      global: true,
      providers: [{ provide: Metrics, useClass: NoMetrics }],
      exports: [Metrics],
    };
  }
}
