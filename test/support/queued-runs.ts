import { randomUUID } from 'node:crypto';
import { StateVault } from '../../src/modules/runs';
import { RunsRepository } from '../../src/modules/runs/persistence/runs.repository';
import type { TestApp } from './test-app';

/** Creates or updates a configuration on the scripted provider; its id. */
export async function upsertScripted(
  t: TestApp,
  identifier: string,
  providerOptions: unknown,
): Promise<string> {
  const res = await t.gql<{ upsertConfiguration: { id: string } }>(
    `mutation($input: ConfigurationInput!) { upsertConfiguration(input: $input) { id } }`,
    { input: { identifier, name: identifier, provider: 'scripted', model: 'scripted', providerOptions } },
  );
  if (!res.data) throw new Error(JSON.stringify(res.errors));
  return res.data.upsertConfiguration.id;
}

/** Inserts QUEUED runs the way a queued start does (sealed start input, no lease). */
export async function enqueue(
  t: TestApp,
  configurationId: string,
  ownerId: string,
  count: number,
): Promise<string[]> {
  const repository = t.app.get(RunsRepository);
  const vault = t.app.get(StateVault);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    await repository.insertQueued({
      id,
      configurationId: Number(configurationId),
      ownerId: Number(ownerId),
      workspaceId: 0,
      subjectPageId: null,
      subjectLanguageId: null,
      maxIterations: 5,
      checkpoint: vault.seal(id, { v: 1, kind: 'start', prompt: `queued ${i}` }),
    });
    ids.push(id);
  }
  return ids;
}
