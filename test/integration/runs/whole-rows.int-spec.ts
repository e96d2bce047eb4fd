import { ConfigurationEntity } from '../../../src/modules/configurations/persistence/configuration.entity';
import {
  ConfigurationsRepository,
  toConfigurationRow,
} from '../../../src/modules/configurations/persistence/configurations.repository';
import { RunEntity } from '../../../src/modules/runs/persistence/run.entity';
import { queuedRun, runningRun, suiteKit, waitingRun } from './runs-support';

/**
 * The hot reads of whole rows (the run by id, the configuration by id) go as one plain
 * statement with every column named (`EntityColumns`), not through TypeORM's query builder:
 * they must hand back exactly what TypeORM's hydration gives.
 */
describe('whole rows read without the query builder', () => {
  const suite = suiteKit();

  it('reads a run as TypeORM does, whatever state it is in', async () => {
    const { kit } = suite;
    const ids = [await queuedRun(kit), (await runningRun(kit)).runId, await waitingRun(kit)];
    await kit.ds.query(
      `UPDATE run SET subject_page_id = 1, subject_language_id = 0, expires_at = now() + interval '1 hour',
              hand_back = '{"reason":"test"}'::jsonb WHERE id = $1`,
      [ids[2]],
    );
    for (const id of ids) {
      const typeorm = await kit.ds.manager.findOneOrFail(RunEntity, { where: { id } });
      const plain = await kit.reads.findById(id);
      expect(plain).toEqual({ ...typeorm });
      expect(Object.keys(plain!).sort()).toEqual(Object.keys({ ...typeorm }).sort());
    }
    expect(await kit.reads.findById('00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('reads a configuration as TypeORM does', async () => {
    const { kit } = suite;
    await kit.ds.query(
      `UPDATE configuration SET allowed_group_ids = '{1,2}', approval_timeout_seconds = 60,
              max_tokens_per_run = 1000, deleted_at = now() WHERE id = $1`,
      [kit.configurationId],
    );
    const repository = new ConfigurationsRepository(kit.ds);
    const ids: Array<{ id: number }> = await kit.ds.query(`SELECT id FROM configuration ORDER BY id`);
    expect(ids.length).toBeGreaterThan(1);
    for (const { id } of ids) {
      const typeorm = await kit.ds.manager.findOneOrFail(ConfigurationEntity, { where: { id } });
      expect(await repository.findById(id)).toEqual(toConfigurationRow(typeorm));
    }
    expect(await repository.findById(2_000_000_000)).toBeNull();
  });
});
