// A token revoked outside the API (on the command line, in SQL) closes its open graphql-ws
// connections at once, as one revoked through the API does: the database's NOTIFY on a change
// of what tokens grant makes every instance re-check the tokens of its open connections
// (platform/graphql/ws-server.ts). Without it they ran on until their next event.
import { revokeTokens } from '../../src/cli/commands/token-manage';
import { OperatorAccounts } from '../../src/modules/auth';
import { refusalsIn } from '../support/authorization-rules';
import { createToken, ProgressFrame, RUN_PROGRESS, startResting } from '../support/decisions';
import { collect, Collected, until } from '../support/runs';
import { useTestApp } from '../support/suite';
import { itOnPostgres } from '../support/test-database';

describe('a token revoked outside the API', () => {
  const { t, ids } = useTestApp({ WORKER_ENABLED: 'false' });

  /** Two of alice's tokens, each with a connection watching her waiting run (snapshot received). */
  async function twoWatchers(): Promise<{
    doomed: { tokenId: string; stream: Collected<ProgressFrame> };
    kept: Collected<ProgressFrame>;
    runId: string;
  }> {
    const runId = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.Products,
    });
    const [a, b] = [
      await createToken(t, ids.users.alice!, 'cli'),
      await createToken(t, ids.users.alice!, 'cli'),
    ];
    const doomed = collect<ProgressFrame>(t.ws(a.token), RUN_PROGRESS, { runId });
    const kept = collect<ProgressFrame>(t.ws(b.token), RUN_PROGRESS, { runId });
    await until(() => doomed.events.length >= 1 && kept.events.length >= 1, 10_000, 'both snapshots');
    return { doomed: { tokenId: a.tokenId, stream: doomed }, kept, runId };
  }

  /** The stream's end within `ms`, or 'still open'. */
  async function endedWithin(stream: Collected<ProgressFrame>, ms: number): Promise<string[] | 'still open'> {
    let timer: NodeJS.Timeout | undefined;
    const open = new Promise<'still open'>(
      (resolve) => (timer = setTimeout(() => resolve('still open'), ms)),
    );
    try {
      return await Promise.race([stream.done.then(() => refusalsIn(stream.errors)), open]);
    } finally {
      // why: a timer left running keeps jest's worker alive after the suite.
      clearTimeout(timer);
    }
  }

  itOnPostgres(
    'on the command line: its connection closes at once (4401); the other token’s stays open',
    async () => {
      const { doomed, kept } = await twoWatchers();
      const lines = await revokeTokens(OperatorAccounts.over(t.dataSource), {
        kind: 'token-revoke',
        username: 'alice',
        tokenId: doomed.tokenId,
      });
      expect(lines).toEqual([`Revoked token ${doomed.tokenId} of "alice".`]);
      // why: no event is published on the run: only the re-check can end the stream.
      expect(await endedWithin(doomed.stream, 5_000)).toEqual(['close 4401']);
      expect(doomed.stream.events).toHaveLength(1);
      expect(await endedWithin(kept, 300)).toBe('still open');
      kept.unsubscribe();
    },
  );

  itOnPostgres(
    'in SQL: a revocation closes the connection; a change that leaves the token valid does not',
    async () => {
      const { doomed, kept } = await twoWatchers();
      // why: renaming nothing still fires the trigger: every open token is re-checked, none closes.
      await t.dataSource.query(`UPDATE access_group SET name = name`);
      expect(await endedWithin(doomed.stream, 500)).toBe('still open');
      await t.dataSource.query(`UPDATE api_token SET revoked_at = now() WHERE id = $1`, [doomed.tokenId]);
      expect(await endedWithin(doomed.stream, 5_000)).toEqual(['close 4401']);
      expect(await endedWithin(kept, 300)).toBe('still open');
      kept.unsubscribe();
    },
  );
});
