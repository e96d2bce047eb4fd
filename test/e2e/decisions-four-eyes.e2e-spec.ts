import {
  decide,
  digestOf,
  effects,
  expectRefusedUnchanged,
  receiptOf,
  startResting,
} from '../support/decisions';
import { waitForRest } from '../support/runs';
import { useTestApp } from '../support/suite';
import type { InboxItem as ApiInboxItem, Run } from '../support/generated/schema';

type InboxItem = Pick<ApiInboxItem, 'mayApprove' | 'detailVisible' | 'decidableHere'> & {
  run: Pick<Run, 'id'>;
};

/** Four-eyes on demo-four-eyes (requireSecondApprover): the initiator may deny, never approve. */
describe('decisions: four-eyes', () => {
  const { t, ids } = useTestApp();

  const pageOf = (page: string) => ({ pageId: ids.pages[page]! });
  const fourEyesRun = (as: string, page: string) =>
    startResting(t, as, {
      configurationId: ids.configurations['demo-four-eyes'],
      prompt: 'SEO please',
      subjectPageId: ids.pages[page],
    });
  const inboxItem = async (as: string, runId: string): Promise<InboxItem | undefined> => {
    const res = await t.gql<{ inbox: InboxItem[] }>(
      `{ inbox { mayApprove detailVisible decidableHere run { id } } }`,
      {},
      as,
    );
    expect(res.errors).toBeUndefined();
    return res.data!.inbox.find((i) => i.run.id === runId);
  };

  it('alice (the initiator) approves: SELF_APPROVAL_DENIED; nothing changes', async () => {
    const runId = await fourEyesRun('alice', 'About');
    const before = await effects(t, runId, pageOf('About'));
    const res = await decide(t, 'approve', 'alice', { runId, turnDigest: await digestOf(t, runId) });
    await expectRefusedUnchanged(t, res, 'SELF_APPROVAL_DENIED', runId, before, pageOf('About'));
  });

  it('alice (the initiator) denies: allowed; the run completes without the write', async () => {
    const runId = await fourEyesRun('alice', 'Products');
    const before = await effects(t, runId, pageOf('Products'));
    const receipt = receiptOf(
      await decide(t, 'deny', 'alice', { runId, turnDigest: await digestOf(t, runId), reason: 'VARIANT' }),
    );
    expect(receipt.decision).toMatchObject({
      kind: 'DENY',
      denialReason: 'VARIANT',
      decidedBy: { username: 'alice' },
    });
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    const after = await effects(t, runId, pageOf('Products'));
    expect(after.page).toEqual(before.page);
    expect(after.decisions).toBe(1);
    expect(after.kinds.filter((k) => k === 'TOOL_WRITE')).toHaveLength(0);
  });

  it('an admin as the initiator approves: SELF_APPROVAL_DENIED (admins are not exempt)', async () => {
    const runId = await fourEyesRun('admin', 'Widget');
    const before = await effects(t, runId, pageOf('Widget'));
    const res = await decide(t, 'approve', 'admin', { runId, turnDigest: await digestOf(t, runId) });
    await expectRefusedUnchanged(t, res, 'SELF_APPROVAL_DENIED', runId, before, pageOf('Widget'));
    // a second person approves it
    receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }));
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    expect((await effects(t, runId, pageOf('Widget'))).page!.seo_title).toBe('A sharper SEO title');
  });

  it('bob approves alice’s run: the write happens once, the run completes', async () => {
    const runId = await fourEyesRun('alice', 'Blog');
    const receipt = receiptOf(
      await decide(t, 'approve', 'bob', { runId, turnDigest: await digestOf(t, runId) }),
    );
    expect(receipt.decision).toMatchObject({ kind: 'APPROVE', decidedBy: { username: 'bob' } });
    expect(await waitForRest(t, runId)).toBe('COMPLETED');
    const after = await effects(t, runId, pageOf('Blog'));
    expect(after.page!.seo_title).toBe('A sharper SEO title');
    expect(after.kinds.filter((k) => k === 'TOOL_WRITE')).toHaveLength(1);
    expect(after.decisions).toBe(1);
  });

  it('the inbox: mayApprove is false for the initiator under four-eyes, true for everyone else', async () => {
    const alices = await fourEyesRun('alice', 'Launch');
    const admins = await fourEyesRun('admin', 'Home');
    const plain = await startResting(t, 'alice', {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages.Launch,
    });
    expect(await inboxItem('alice', alices)).toMatchObject({
      mayApprove: false,
      detailVisible: true,
      decidableHere: true,
    });
    expect(await inboxItem('bob', alices)).toMatchObject({ mayApprove: true, detailVisible: false });
    expect(await inboxItem('admin', alices)).toMatchObject({ mayApprove: true, detailVisible: true });
    expect(await inboxItem('admin', admins)).toMatchObject({ mayApprove: false, detailVisible: true });
    expect(await inboxItem('carol', admins)).toMatchObject({ mayApprove: true, detailVisible: false });
    expect(await inboxItem('alice', admins)).toBeUndefined();
    expect(await inboxItem('alice', plain)).toMatchObject({ mayApprove: true });
  });
});
