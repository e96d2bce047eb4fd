import type { UserView } from '../../auth';
import { toUserModel } from '../../auth';
import { RunStatusEnum } from '../../runs';
import { toRunModel } from '../../runs';
import type { InboxEntry } from '../application/inbox.service';
import type { DecisionView } from '../core/decision-view';
import { inboxItemId, type InboxChange } from '../core/inbox-change';
import {
  DecisionKindEnum,
  DecisionModel,
  DecisionPathEnum,
  DenialReasonEnum,
  InboxChangeEnum,
  InboxItemModel,
} from './decision.model';

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

/** An inbox entry for its viewer; `change` only on inboxChanged events. */
export function toInboxItemModel(
  entry: InboxEntry,
  viewerId: number,
  change: InboxChange | null = null,
): InboxItemModel {
  return {
    ...entry,
    id: inboxItemId(entry.run.id, viewerId),
    change: change as InboxChangeEnum | null,
    run: toRunModel(entry.run),
  };
}
