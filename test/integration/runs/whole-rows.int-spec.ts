import { ConfigurationEntity } from '../../../src/modules/configurations/persistence/configuration.entity';
import {
  ConfigurationsRepository,
  toConfigurationRow,
} from '../../../src/modules/configurations/persistence/configurations.repository';
import { DecisionEntity } from '../../../src/modules/approvals/persistence/decision.entity';
import { DecisionsRepository } from '../../../src/modules/approvals/persistence/decisions.repository';
import { ConversationEntity } from '../../../src/modules/conversations/persistence/conversation.entity';
import { ConversationsRepository } from '../../../src/modules/conversations/persistence/conversations.repository';
import { ContentRepository } from '../../../src/modules/content/persistence/content.repository';
import { RunEntity } from '../../../src/modules/runs/persistence/run.entity';
import { queuedRun, runningRun, suiteKit, waitingRun } from './runs-support';

/**
 * The hot reads of whole rows (the run by id, the configuration by id, the decision by id, the
 * conversation on a run) go as one plain
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

  it('reads a decision as TypeORM does, settled or not', async () => {
    const { kit } = suite;
    const runId = await waitingRun(kit);
    const [user] = await kit.ds.query<Array<{ id: number }>>(`SELECT id FROM app_user ORDER BY id LIMIT 1`);
    const ids = ['10000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000002'];
    await kit.ds.query(
      `INSERT INTO decision (id, run_id, turn, kind, decided_by, denial_reason, turn_digest, path, idempotency_key,
         fingerprint, outcome, settled_at, handed_back_code)
       VALUES ($1, $3, 1, 'approve', $4, NULL, repeat('a', 64), 'INLINE', NULL, repeat('b', 64), NULL, NULL, NULL),
              ($2, $3, 2, 'deny', $4, 'OTHER', repeat('c', 64), 'DURABLE', 'key-1', repeat('d', 64),
               'COMPLETED', now(), 'STALE_TURN')`,
      [ids[0], ids[1], runId, user!.id],
    );
    const repository = new DecisionsRepository(kit.ds);
    const plain = await repository.findByIds([...ids, '00000000-0000-4000-8000-000000000000']);
    expect(plain.map((d) => d.id).sort()).toEqual(ids);
    for (const id of ids) {
      const typeorm = await kit.ds.manager.findOneOrFail(DecisionEntity, { where: { id } });
      const read = plain.find((d) => d.id === id);
      expect(read).toEqual({ ...typeorm });
      expect(Object.keys(read!).sort()).toEqual(Object.keys({ ...typeorm }).sort());
    }
    expect(await repository.findByIds([])).toEqual([]);
  });

  it('reads the conversation on a run as TypeORM does', async () => {
    const { kit } = suite;
    const runId = await waitingRun(kit);
    const [user] = await kit.ds.query<Array<{ id: number }>>(`SELECT id FROM app_user ORDER BY id LIMIT 1`);
    await kit.ds.query(
      `INSERT INTO conversation (id, owner_id, title, status, view_page_id, view_language_id, view_module,
         skill_identifier, skill_id, skill_is_process, last_run_id, active_run_id, archived_at)
       VALUES ('20000000-0000-4000-8000-000000000001', $1, 'About us', 'AWAITING_APPROVAL', 1, 0, 'page',
               'seo', NULL, true, $2, $2, NULL)`,
      [user!.id, runId],
    );
    const repository = new ConversationsRepository(kit.ds);
    const typeorm = await kit.ds.manager.findOneOrFail(ConversationEntity, { where: { activeRunId: runId } });
    const plain = await repository.findByActiveRun(runId);
    expect(plain).toEqual({ ...typeorm });
    expect(Object.keys(plain!).sort()).toEqual(Object.keys({ ...typeorm }).sort());
    expect(await repository.findByActiveRun('00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('reads a run with its configuration and the page it is about joined, as their own reads give them', async () => {
    const { kit } = suite;
    const configurations = new ConfigurationsRepository(kit.ds);
    const content = new ContentRepository(kit.ds);
    const joins = {
      configuration: configurations.joinedById,
      page: content.joinedRunPageWithSiteLanguages,
    };
    const pages: Array<{ id: number; site_id: number | null }> = await kit.ds.query(
      `SELECT id, site_id FROM page ORDER BY site_id NULLS FIRST, id`,
    );
    // why: a page outside every site has no site languages; one inside has its site's; a run
    // without a subject page is about the first site's root page, as its page tools default to.
    const subjects = [null, pages[0]!.id, pages[pages.length - 1]!.id];
    expect(pages[0]!.site_id).toBeNull();
    const firstRoot = await content.firstRootPageId();
    expect(firstRoot).not.toBeNull();
    const one = async (id: string) => (await kit.reads.findByIdsWith([id], joins))[0] ?? null;
    const runIds: string[] = [];
    for (const subject of subjects) {
      const runId = await waitingRun(kit);
      runIds.push(runId);
      await kit.ds.query(`UPDATE run SET subject_page_id = $2 WHERE id = $1`, [runId, subject]);
      const read = await one(runId);
      expect(read!.run).toEqual(await kit.reads.findById(runId));
      expect(read!.configuration).toEqual(await configurations.findById(read!.run.configurationId));
      expect(read!.page).toEqual((await content.findPagesWithSiteLanguages([subject ?? firstRoot!]))[0]);
    }
    // why: several runs in one statement read as each alone; an unknown id is absent.
    const unknown = '00000000-0000-4000-8000-000000000000';
    const together = await kit.reads.findByIdsWith([...runIds, unknown], joins);
    expect(together.map((r) => r.run.id).sort()).toEqual([...runIds].sort());
    for (const read of together) expect(read).toEqual(await one(read.run.id));
    // why: with no site at all, a run without a subject page is about no page.
    const bare = await waitingRun(kit);
    await kit.ds.query(`UPDATE run SET subject_page_id = NULL WHERE id = $1`, [bare]);
    await kit.ds.query(`UPDATE page SET site_id = NULL`);
    expect((await one(bare))!.page).toBeNull();
    expect(await one(unknown)).toBeNull();
  });
});
