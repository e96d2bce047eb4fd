import type { OperatorAccounts } from '../../modules/auth';
import { RequestContext } from '../../platform/auth/request-context';
import { CliFailure, refusalsAsFailures } from '../failure';

/** The groups-claim mapping, one line each, by claim value (docs/security.md). */
export async function listGroupMappings(accounts: OperatorAccounts): Promise<string[]> {
  const mappings = await accounts.groupMappings.list(RequestContext.system());
  if (mappings.length === 0) return ['No mappings yet: add one with `group-map add --value V --group G`.'];
  return [
    `Mappings (${mappings.length}):`,
    ...mappings.map(
      (m) => `${m.id}  "${m.claimValue}" -> ${m.group.name}  admin: ${m.grantsAdmin ? 'yes' : 'no'}`,
    ),
  ];
}

/**
 * Maps a claim value to an existing group, through the admins' own use case as the system;
 * fails (nothing written) for an unknown group or a repeat.
 */
export async function addGroupMapping(
  accounts: OperatorAccounts,
  cmd: { value: string; group: string; admin: boolean },
): Promise<string[]> {
  const system = RequestContext.system();
  const group = (await accounts.users.listGroups(system)).find((g) => g.name === cmd.group);
  if (!group) throw new CliFailure(`no group named "${cmd.group}"`);
  const request = { claimValue: cmd.value, groupId: group.id, grantsAdmin: cmd.admin };
  const mapping = await refusalsAsFailures(accounts.groupMappings.create(system, request), (r) =>
    r.code === 'BAD_USER_INPUT' && r.details.field === 'claimValue'
      ? new CliFailure(`"${cmd.value}" is already mapped to ${cmd.group}`)
      : null,
  );
  return [
    `Mapped "${mapping.claimValue}" to ${mapping.group.name} (id ${mapping.id}, admin: ${mapping.grantsAdmin ? 'yes' : 'no'}); it counts from each user's next sign-in.`,
  ];
}
