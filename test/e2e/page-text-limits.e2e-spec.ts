import {
  decide,
  digestOf,
  pendingOf,
  receiptOf,
  startResting,
  upsertConfiguration,
} from '../support/decisions';
import { waitForRest } from '../support/runs';
import { useTestApp } from '../support/suite';

/**
 * A page text's limits count characters as its columns do (code points), in the tool's schema
 * and in the content module alike (docs/run-lifecycle.md): a title of emoji that fits its
 * varchar(500) is previewed, approved and written whole; one character more fails the schema
 * the model is given, which the approver sees in the preview, and nothing is written.
 */
describe('page text limits, in characters', () => {
  const { t, ids } = useTestApp({ WORKER_ENABLED: 'false' });

  /**
   * A run of a scripted configuration that proposes `seoTitle` for About in `workspaceId`,
   * then answers: started as alice, waiting for approval; answers the run and its one preview.
   */
  async function proposed(
    seoTitle: string,
    workspaceId: number,
  ): Promise<{ runId: string; preview: string[] }> {
    const configurationId = await upsertConfiguration(t, {
      identifier: `limits-${workspaceId}`,
      providerOptions: {
        rounds: [{ toolCalls: [{ name: 'pages_update', arguments: { seoTitle } }] }, { text: 'Done.' }],
      },
    });
    const runId = await startResting(t, 'alice', {
      configurationId,
      prompt: 'Rockets',
      subjectPageId: ids.pages.About,
      workspaceId,
    });
    const pending = await pendingOf(t, runId);
    return { runId, preview: pending?.calls[0]?.preview ?? [] };
  }

  /** Carol approves the run's turn; answers where the run then rests. */
  async function approved(runId: string): Promise<string> {
    const receipt = receiptOf(
      await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }),
    );
    expect(receipt.decision.kind).toBe('APPROVE');
    return waitForRest(t, runId);
  }

  const seoTitleOf = async (workspaceId: number) =>
    t.dataSource.query(
      `SELECT seo_title, char_length(seo_title) AS chars FROM page_text
        WHERE page_id = $1 AND language_id = 0 AND workspace_id = $2`,
      [ids.pages.About, workspaceId],
    );

  it('writes a 500-emoji SEO title (1,000 UTF-16 units) that fits its varchar(500) column', async () => {
    const seoTitle = '🚀'.repeat(500);
    const { runId, preview } = await proposed(seoTitle, 41);
    expect(preview).toEqual([
      expect.stringMatching(/^seoTitle: .* -> "(🚀){200}"… \(500 chars, #[0-9a-f]{12}\)$/u),
    ]);

    expect(await approved(runId)).toBe('COMPLETED');
    expect(await seoTitleOf(41)).toEqual([{ seo_title: seoTitle, chars: 500 }]);
  });

  it('refuses 501 emoji in the schema the model is given: the approver sees why, nothing is written', async () => {
    const { runId, preview } = await proposed('🚀'.repeat(501), 42);
    expect(preview).toEqual([
      expect.stringMatching(/^Invalid arguments: .*seoTitle must NOT have more than 500 characters/),
    ]);

    expect(await approved(runId)).toBe('COMPLETED');
    const steps = await t.dataSource.query(
      `SELECT kind FROM run_step WHERE run_id = $1 AND kind IN ('APPROVAL', 'TOOL', 'TOOL_WRITE') ORDER BY sequence`,
      [runId],
    );
    expect(steps.map((s: { kind: string }) => s.kind)).toEqual(['APPROVAL', 'TOOL']);
    expect(await seoTitleOf(42)).toEqual([]);
  });
});
