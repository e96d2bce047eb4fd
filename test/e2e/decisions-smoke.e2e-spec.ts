import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';
import { startRun, waitForRest } from '../support/runs';

const PENDING = `query($id: ID!) { run(id: $id) { status pending { turnDigest } } }`;
const APPROVE = `mutation($input: ApproveRunInput!) { approveRun(input: $input) {
  path decision { kind turn decidedBy { username } outcome } run { id status } } }`;

describe('decisions: the happy path', () => {
  const { t, ids } = useTestApp();

  it('approves demo-editor: the write happens once and the run completes', async () => {
    const run = await startRun(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.Products,
    });
    expect(await waitForRest(t, run.id)).toBe('WAITING_FOR_APPROVAL');
    const pending = await t.gql<{ run: { pending: { turnDigest: string } } }>(
      PENDING,
      { id: run.id },
      'alice',
    );
    const digest = pending.data!.run.pending.turnDigest;
    const res = await t.gql<{ approveRun: any }>(
      APPROVE,
      { input: { runId: run.id, turnDigest: digest } },
      'carol',
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.approveRun.path).toBe('INLINE');
    expect(res.data!.approveRun.run.status).toBe('RUNNING');
    expect(res.data!.approveRun.decision).toMatchObject({
      kind: 'APPROVE',
      turn: 1,
      decidedBy: { username: 'carol' },
    });
    expect(await waitForRest(t, run.id)).toBe('COMPLETED');
    const [text] = await t.dataSource.query(
      'SELECT seo_title FROM page_text WHERE page_id = $1 AND language_id = 0 AND workspace_id = 0',
      [ids.pages.Products],
    );
    expect(text.seo_title).toBe('A sharper SEO title');
    const kinds: Array<{ kind: string }> = await t.dataSource.query(
      'SELECT kind FROM run_step WHERE run_id = $1 ORDER BY sequence',
      [run.id],
    );
    expect(kinds.filter((k) => k.kind === 'APPROVAL')).toHaveLength(1);
    expect(kinds.filter((k) => k.kind === 'TOOL_WRITE')).toHaveLength(1);
    const [decision] = await t.dataSource.query('SELECT outcome FROM decision WHERE run_id = $1', [run.id]);
    expect(decision.outcome).toBe('COMPLETED');
    const again = await t.gql(APPROVE, { input: { runId: run.id, turnDigest: digest } }, 'carol');
    expect(errorCode(again)).toBe('RUN_NOT_WAITING');
  });
});
