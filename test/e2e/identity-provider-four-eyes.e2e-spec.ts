import { decide, digestOf, receiptOf, startResting } from '../support/decisions';
import { mapIdentityGroup, TestOidcProvider } from '../support/oidc-provider';
import { waitForRest } from '../support/runs';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';

/**
 * The "done when", over the API: a run started by one user signed in through the
 * provider is decided by another such user under four-eyes, and the decision record names both.
 */
describe('four-eyes between two users of the identity provider', () => {
  let idp: TestOidcProvider;
  beforeAll(async () => {
    idp = await TestOidcProvider.start();
  });
  const { t, ids } = useTestApp(() => idp.settings());
  afterAll(async () => {
    await idp?.stop();
  });

  beforeAll(async () => {
    await mapIdentityGroup(t.dataSource, 'Countersign.Editors', 'editors');
    await mapIdentityGroup(t.dataSource, 'Countersign.Approvers', 'approvers');
  });

  it('the initiator may not approve; the second user does, and the record names both', async () => {
    const both = ['Countersign.Editors', 'Countersign.Approvers'];
    const edna = await idp.token('sub-edna', { claims: { preferred_username: 'edna', groups: both } });
    const olga = await idp.token('sub-olga', { claims: { preferred_username: 'olga', groups: both } });
    const runId = await startResting(t, edna, {
      configurationId: ids.configurations['demo-four-eyes'],
      prompt: 'SEO please',
      subjectPageId: ids.pages['About'],
    });
    const self = await decide(t, 'approve', edna, { runId, turnDigest: await digestOf(t, runId) });
    expect(errorCode(self)).toBe('SELF_APPROVAL_DENIED');

    const receipt = receiptOf(
      await decide(t, 'approve', olga, { runId, turnDigest: await digestOf(t, runId) }),
    );
    expect(receipt.decision).toMatchObject({ kind: 'APPROVE', decidedBy: { username: 'olga' } });
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    const record = await t.dataSource.query<{ owner: string; decider: string; decisions: string }[]>(
      `SELECT o.username AS owner, d.username AS decider, (SELECT count(*) FROM decision WHERE run_id = $1) AS decisions
         FROM decision x JOIN run r ON r.id = x.run_id JOIN app_user o ON o.id = r.owner_id
         JOIN app_user d ON d.id = x.decided_by WHERE x.run_id = $1`,
      [runId],
    );
    expect(record).toEqual([{ owner: 'edna', decider: 'olga', decisions: '1' }]);
  });
});
