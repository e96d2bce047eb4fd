// Hostile input (issue 7), how it is logged: a refusal at debug level with its code and without
// a stack, never as an error; a fault still as an error. The refusals themselves, and that none
// of them logged an error, are hostile-input-refusals.e2e-spec.ts.
import { Logger } from '@nestjs/common';
import { hostileInputApp } from '../support/hostile-input';
import { until } from '../support/runs';

describe('hostile input', () => {
  const h = hostileInputApp();

  describe('logging', () => {
    let debugLog: jest.SpyInstance;
    beforeAll(async () => {
      // why: a turn or continuation still moving (the baselines', where they ran before) could
      // log on its own; let every run settle first.
      await until(
        async () => {
          const [moving] = await h.t.dataSource.query<Array<{ n: number }>>(
            `SELECT count(*)::int AS n FROM run WHERE status IN ('RUNNING', 'QUEUED', 'DECISION_RECORDED')`,
          );
          return moving!.n === 0;
        },
        20_000,
        'runs to settle',
      );
    });
    beforeEach(() => {
      h.errorLog.mockClear();
      debugLog = jest.spyOn(Logger.prototype, 'debug');
    });
    afterEach(() => debugLog.mockRestore());

    it('logs a refusal at debug level, with its code and without a stack', async () => {
      const answer = await h.post(
        JSON.stringify({
          query: 'mutation($id: ID!) { cancelRun(runId: $id) { id } }',
          variables: { id: '5b0c2a3e-9d1f-4c6b-8e2a-7f3d9c1b0a42' },
        }),
        'alice',
      );
      expect(answer.body?.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      expect(h.errorLog).not.toHaveBeenCalled();
      const refusals = debugLog.mock.calls.filter(
        ([first]) => (first as { code?: string })?.code === 'NOT_FOUND',
      );
      expect(refusals).toEqual([[{ code: 'NOT_FOUND', refusal: 'Run not found' }, 'refused']]);
      expect(JSON.stringify(refusals)).not.toMatch(/\bat .*\.ts:\d+/);
    });

    it('still logs a fault as an error', async () => {
      await h.t.dataSource.query('ALTER TABLE skill RENAME TO skill_hidden');
      try {
        const answer = await h.post(
          JSON.stringify({
            query: 'mutation { upsertSkill(input: { identifier: "gone", name: "n", body: "b" }) { id } }',
          }),
        );
        expect(answer.body?.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      } finally {
        await h.t.dataSource.query('ALTER TABLE skill_hidden RENAME TO skill');
      }
      expect(h.errorLog).toHaveBeenCalledWith(expect.objectContaining({ name: 'QueryFailedError' }));
      expect(await h.alive()).toBe(true);
    });
  });
});
