import { DataSource } from 'typeorm';
import { CliFailure } from '../failure';

interface MappingRow {
  id: number;
  claim_value: string;
  group_name: string;
  grants_admin: boolean;
}

/** The groups-claim mapping, one line each, by claim value (docs/security.md). */
export async function listGroupMappings(ds: DataSource): Promise<string[]> {
  const rows = await ds.query<MappingRow[]>(
    `SELECT m.id, m.claim_value, g.name AS group_name, m.grants_admin
       FROM identity_group_mapping m JOIN access_group g ON g.id = m.group_id ORDER BY m.claim_value, m.id`,
  );
  if (rows.length === 0) return ['No mappings yet: add one with `group-map add --value V --group G`.'];
  return [
    `Mappings (${rows.length}):`,
    ...rows.map(
      (r) => `${r.id}  "${r.claim_value}" -> ${r.group_name}  admin: ${r.grants_admin ? 'yes' : 'no'}`,
    ),
  ];
}

/** Maps a claim value to an existing group; fails (nothing written) for an unknown group or a repeat. */
export async function addGroupMapping(
  ds: DataSource,
  cmd: { value: string; group: string; admin: boolean },
): Promise<string[]> {
  const groups = await ds.query<{ id: number }[]>(`SELECT id FROM access_group WHERE name = $1`, [cmd.group]);
  const groupId = groups[0]?.id;
  if (groupId === undefined) throw new CliFailure(`no group named "${cmd.group}"`);
  const rows = await ds.query<{ id: number }[]>(
    `INSERT INTO identity_group_mapping (claim_value, group_id, grants_admin) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING id`,
    [cmd.value, groupId, cmd.admin],
  );
  const id = rows[0]?.id;
  if (id === undefined) throw new CliFailure(`"${cmd.value}" is already mapped to ${cmd.group}`);
  return [
    `Mapped "${cmd.value}" to ${cmd.group} (id ${id}, admin: ${cmd.admin ? 'yes' : 'no'}); it counts from each user's next sign-in.`,
  ];
}
