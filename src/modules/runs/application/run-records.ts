import type { RunStepEntity } from '../persistence/run-step.entity';
import type { RunEntity } from '../persistence/run.entity';

/** A run as the application layer hands it to the transport (the stored row). */
export type RunRecord = RunEntity;
/** A stored step as the application layer hands it to the transport. */
export type RunStepRecord = RunStepEntity;
