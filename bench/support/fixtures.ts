import type { Client } from 'pg';
import type { ScriptedRound } from '../../src/agent/providers/scripted';

export type PrivacyLevel = 'NONE' | 'METADATA' | 'REDACTED' | 'FULL';

export interface ScriptedConfiguration {
  readonly identifier: string;
  readonly rounds: readonly ScriptedRound[];
  readonly maxIterations: number;
  readonly privacyLevel?: PrivacyLevel;
  /** Groups that may use it; empty: everyone. */
  readonly allowedGroupIds?: readonly number[];
}

/**
 * Creates (or replaces) a configuration of the `scripted` provider with these rounds, by its
 * identifier, and returns its id. Plain SQL: the bench needs iteration limits above what the
 * admin API accepts, and a fixture should not depend on the API it measures.
 */
export async function upsertScriptedConfiguration(client: Client, c: ScriptedConfiguration): Promise<string> {
  const r = await client.query<{ id: number }>(
    `INSERT INTO configuration (identifier, name, provider, model, provider_options, max_iterations, privacy_level, allowed_group_ids)
     VALUES ($1, $2, 'scripted', 'scripted', $3::jsonb, $4, $5, $6)
     ON CONFLICT (identifier) DO UPDATE SET provider_options = EXCLUDED.provider_options,
       max_iterations = EXCLUDED.max_iterations, privacy_level = EXCLUDED.privacy_level,
       allowed_group_ids = EXCLUDED.allowed_group_ids, is_active = true, deleted_at = NULL
     RETURNING id`,
    [
      c.identifier,
      `Bench ${c.identifier}`,
      JSON.stringify({ rounds: c.rounds }),
      c.maxIterations,
      c.privacyLevel ?? 'METADATA',
      [...(c.allowedGroupIds ?? [])],
    ],
  );
  return String(r.rows[0]!.id);
}

/** `n` rounds that each read the run's subject page (no approval, no delay), then a final text. */
export function readRounds(n: number, finalText = 'Done reading.'): ScriptedRound[] {
  const read: ScriptedRound = { toolCalls: [{ name: 'pages_read', arguments: {} }] };
  return [...Array.from({ length: n }, () => read), { text: finalText }];
}
