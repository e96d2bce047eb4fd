import type { UserView } from '../../auth';
import { toUserModel } from '../../auth';
import { RunStatusEnum } from '../../runs';
import type { DecisionView } from '../core/decision-view';
import { DecisionKindEnum, DecisionModel, DecisionPathEnum, DenialReasonEnum } from './decision.model';

export function toDecisionModel(d: DecisionView, decider: UserView): DecisionModel {
  return {
    id: d.id,
    turn: d.turn,
    kind: d.kind as DecisionKindEnum,
    decidedBy: toUserModel(decider),
    denialReason: (d.denialReason as DenialReasonEnum | null) ?? null,
    turnDigest: d.turnDigest,
    path: d.path as DecisionPathEnum,
    decidedAt: d.decidedAt,
    outcome: (d.outcome as RunStatusEnum | null) ?? null,
  };
}
