import { Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics } from '../../../platform/metrics/metrics';
import { WorkerStatusService } from './worker-status.service';

/** Hands `/metrics` the database's run and worker figures, read at each scrape. */
@Injectable()
export class RunCensusReporter implements OnModuleInit {
  constructor(
    private readonly status: WorkerStatusService,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.metrics.watchCensus(() => this.status.census());
  }
}
