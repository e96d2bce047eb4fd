import type { DecisionEntity } from '../persistence/decision.entity';

/** A decision as the application layer hands it to the transport (the audit row). */
export type DecisionRecord = DecisionEntity;
