import type { UserView, UsersService } from '../../auth';
import type { RequestContext } from '../../../platform/auth/request-context';
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

export function toDecisionModel(d: DecisionView, decider: UserView | null): DecisionModel {
  return {
    id: d.id,
    turn: d.turn,
    kind: d.kind as DecisionKindEnum,
    decidedBy: decider ? toUserModel(decider) : null,
    denialReason: (d.denialReason as DenialReasonEnum | null) ?? null,
    turnDigest: d.turnDigest,
    path: d.path as DecisionPathEnum,
    decidedAt: d.decidedAt,
    outcome: (d.outcome as RunStatusEnum | null) ?? null,
  };
}

/** Decisions with their deciders as the viewer may see them (none for EXPIRE). */
export async function toDecisionModels(
  users: UsersService,
  ctx: RequestContext,
  decisions: readonly DecisionView[],
): Promise<DecisionModel[]> {
  // why: the caller is known from its token (the decider of every receipt); only other
  // deciders are read, so a receipt costs no statement after its commit.
  const others = decisions
    .map((d) => d.decidedBy)
    .filter((id): id is number => id !== null && id !== ctx.viewer.id);
  const deciders =
    others.length > 0 ? await users.findByIds(ctx, [...new Set(others)]) : new Map<number, UserView>();
  deciders.set(ctx.viewer.id, ctx.viewer);
  return decisions.map((d) => {
    if (d.decidedBy === null) return toDecisionModel(d, null);
    const decider = deciders.get(d.decidedBy);
    if (!decider) throw new Error(`decider ${d.decidedBy} vanished`);
    // why: a user's groups are shown to admins and the user only (as Run.owner's are), so a
    // client cache holds one User per id whichever field it came through.
    const groups = ctx.viewer.isAdmin || decider.id === ctx.viewer.id;
    return toDecisionModel(d, groups ? decider : { ...decider, groups: [] });
  });
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
