import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig, RetentionSettings } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { Metrics } from '../../../platform/metrics/metrics';
import { RunRetentionRepository } from '../persistence/run-retention.repository';

/** What one pass of the sweep removed. */
export interface RetentionPass {
  /** Finished runs whose steps were deleted (the runs stay). */
  readonly runsStripped: number;
  /** Finished runs deleted, with their steps and decision records. */
  readonly runsRemoved: number;
  /** Steps deleted by either. */
  readonly stepsRemoved: number;
  /** A batch came back full: more may be due at once. */
  readonly more: boolean;
}

/**
 * Retention of finished runs (docs/operations.md): with RETENTION_STEPS_DAYS their steps are
 * deleted that long after they finished (the run row, its answer, usage and decisions stay,
 * `stepsRemovedAt` is set); with RETENTION_RUNS_DAYS the runs themselves go. Neither is set by
 * default. A pass is one small batch of each kind, each its own statement and commit.
 */
@Injectable()
export class RunRetention {
  private readonly logger = new Logger(RunRetention.name);
  private readonly settings: RetentionSettings;

  constructor(
    private readonly repository: RunRetentionRepository,
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = config.retention;
  }

  /** Whether any retention is configured (the sweep runs only then). */
  get enabled(): boolean {
    return this.settings.stepsAfterSeconds !== null || this.settings.runsAfterSeconds !== null;
  }

  get intervalSeconds(): number {
    return this.settings.intervalSeconds;
  }

  async sweepOnce(): Promise<RetentionPass> {
    const { stepsAfterSeconds, runsAfterSeconds, batchRuns } = this.settings;
    // why: a run due for deletion as a whole is not stripped first (removeSteps skips it).
    const removed =
      runsAfterSeconds === null
        ? { runs: 0, steps: 0 }
        : await this.repository.removeRuns(runsAfterSeconds, batchRuns);
    const stripped =
      stepsAfterSeconds === null
        ? { runs: 0, steps: 0 }
        : await this.repository.removeSteps(stepsAfterSeconds, batchRuns, runsAfterSeconds);
    const pass: RetentionPass = {
      runsStripped: stripped.runs,
      runsRemoved: removed.runs,
      stepsRemoved: stripped.steps + removed.steps,
      more: stripped.runs >= batchRuns || removed.runs >= batchRuns,
    };
    this.metrics.retentionRemoved({
      runs: pass.runsRemoved,
      strippedRuns: pass.runsStripped,
      steps: pass.stepsRemoved,
    });
    if (pass.runsStripped + pass.runsRemoved > 0) {
      this.logger.log(
        { runsRemoved: pass.runsRemoved, runsStripped: pass.runsStripped, stepsRemoved: pass.stepsRemoved },
        `retention removed ${pass.runsRemoved} run(s) and the steps of ${pass.runsStripped} more (${pass.stepsRemoved} step(s))`,
      );
    }
    return pass;
  }
}
