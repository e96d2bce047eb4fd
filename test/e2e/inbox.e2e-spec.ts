import { createToken, decide, digestOf, INBOX_CHANGED, receiptOf, startResting } from '../support/decisions';
import { collect, until, waitForRest } from '../support/runs';
import { useTestApp } from '../support/suite';
import type {
  InboxItem as ApiInboxItem,
  PendingToolCall,
  PendingTurn,
  Run,
} from '../support/generated/schema';

type InboxItem = Pick<ApiInboxItem, 'detailVisible' | 'mayApprove' | 'decidableHere'> & {
  run: Pick<Run, 'id' | 'status'> & {
    pending:
      | (Pick<PendingTurn, 'kind' | 'turnDigest'> & {
          calls: Array<Pick<PendingToolCall, 'toolName' | 'writes' | 'arguments' | 'preview'>>;
        })
      | null;
  };
};

interface InboxChange {
  inboxChanged: Pick<ApiInboxItem, 'detailVisible' | 'mayApprove' | 'decidableHere'> & {
    run: Pick<Run, 'id' | 'status'>;
  };
}

const INBOX = `{ inbox { detailVisible mayApprove decidableHere
  run { id status pending { kind turnDigest calls { toolName writes arguments preview } } } } }`;

/** The inbox (docs/decisions.md "What the inbox shows") and inboxChanged. */
describe('inbox', () => {
  const { t, ids } = useTestApp();

  const inboxOf = async (as: string): Promise<InboxItem[]> => {
    const res = await t.gql<{ inbox: InboxItem[] }>(INBOX, {}, as);
    expect(res.errors).toBeUndefined();
    return res.data!.inbox;
  };
  const editorRun = (as: string, page: string) =>
    startResting(t, as, {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages[page],
    });

  it('bob (AGENT_APPROVE, no detail) gets alice’s run: previews, but no arguments', async () => {
    const runId = await editorRun('alice', 'About');
    const bobs = (await inboxOf('bob')).find((i) => i.run.id === runId);
    expect(bobs).toMatchObject({ detailVisible: false, mayApprove: true, decidableHere: true });
    expect(bobs!.run.status).toBe('WAITING_FOR_APPROVAL');
    expect(bobs!.run.pending!.calls).toEqual([
      {
        toolName: 'pages_update',
        writes: true,
        arguments: null,
        preview: ['seoTitle: "About us" -> "A sharper SEO title"'],
      },
    ]);
    // the owner sees the same pending turn with its arguments
    const alices = (await inboxOf('alice')).find((i) => i.run.id === runId);
    expect(alices).toMatchObject({ detailVisible: true, mayApprove: true });
    expect(alices!.run.pending!.calls[0]!.arguments).toMatchObject({ seoTitle: 'A sharper SEO title' });
    expect(alices!.run.pending!.turnDigest).toBe(bobs!.run.pending!.turnDigest);
    // dave (no grant, not the owner) does not see it; erin neither
    expect((await inboxOf('dave')).map((i) => i.run.id)).not.toContain(runId);
    expect((await inboxOf('erin')).map((i) => i.run.id)).not.toContain(runId);
    // bob's detail stays closed outside the inbox too
    const steps = await t.gql(
      `query($id: ID!) { run(id: $id) { steps { nodes { sequence } } } }`,
      { id: runId },
      'bob',
    );
    expect(steps.errors![0]!.extensions!.code).toBe('FORBIDDEN');
  });

  it('lists only waiting runs, oldest first', async () => {
    const first = await editorRun('alice', 'Widget');
    const second = await editorRun('alice', 'Blog');
    const listed = (await inboxOf('bob')).map((i) => i.run);
    expect(listed.every((r) => ['WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT'].includes(r.status))).toBe(true);
    const order = listed.map((r) => r.id);
    expect(order.indexOf(first)).toBeGreaterThanOrEqual(0);
    expect(order.indexOf(first)).toBeLessThan(order.indexOf(second));
    receiptOf(await decide(t, 'approve', 'bob', { runId: first, turnDigest: await digestOf(t, first) }));
    expect(await waitForRest(t, first)).toBe('COMPLETED');
    expect((await inboxOf('bob')).map((i) => i.run.id)).not.toContain(first);
  });

  it('inboxChanged: bob sees a run enter and leave; dave sees only his own', async () => {
    const bob = collect<InboxChange>(t.ws('bob'), INBOX_CHANGED, {});
    const dave = collect<InboxChange>(t.ws('dave'), INBOX_CHANGED, {});
    const seen = (c: typeof bob, runId: string) => c.events.filter((e) => e.inboxChanged.run.id === runId);
    // why: a subscription gives no sign that it is active; probe runs of dave's own, which
    // both may decide, show that both listen before the run under test starts.
    const probes: string[] = [];
    const listening = () => probes.some((p) => seen(bob, p).length > 0 && seen(dave, p).length > 0);
    for (let attempt = 0; attempt < 20 && !listening(); attempt++) {
      probes.push(await editorRun('dave', 'Products'));
      await until(listening, 500, 'the probe').catch(() => undefined);
    }
    expect(listening()).toBe(true);
    const probe = probes.find((p) => seen(bob, p).length > 0 && seen(dave, p).length > 0)!;

    const runId = await editorRun('alice', 'Launch');
    await until(() => seen(bob, runId).length >= 1, 10_000, 'the run entering bob’s inbox');
    expect(seen(bob, runId)[0]!.inboxChanged).toEqual({
      detailVisible: false,
      mayApprove: true,
      decidableHere: true,
      run: { id: runId, status: 'WAITING_FOR_APPROVAL' },
    });

    receiptOf(await decide(t, 'approve', 'carol', { runId, turnDigest: await digestOf(t, runId) }));
    await until(() => seen(bob, runId).length >= 2, 10_000, 'the run leaving bob’s inbox');
    expect(seen(bob, runId)[1]!.inboxChanged.run.status).not.toMatch(/^WAITING_/);
    expect(await waitForRest(t, runId)).toBe('COMPLETED');

    // dave's own run leaves his inbox too; alice's never showed up there
    receiptOf(await decide(t, 'deny', 'dave', { runId: probe, turnDigest: await digestOf(t, probe) }));
    await until(() => seen(dave, probe).length >= 2, 10_000, 'the probe leaving dave’s inbox');
    expect(await waitForRest(t, probe)).toBe('COMPLETED');
    expect(dave.events.map((e) => e.inboxChanged.run.id).every((id) => probes.includes(id))).toBe(true);
    expect(seen(dave, runId)).toEqual([]);
    expect(seen(dave, probe).map((e) => e.inboxChanged.detailVisible)).toEqual([true, true]);
    expect(bob.errors).toEqual([]);
    expect(dave.errors).toEqual([]);
    bob.unsubscribe();
    dave.unsubscribe();
  });

  it('inboxChanged with a revoked token ends at once: its connection closes (4401)', async () => {
    const own = await createToken(t, ids.users.bob!, 'bob');
    const stream = collect<InboxChange>(t.ws(own.token), INBOX_CHANGED, {});
    const control = collect<InboxChange>(t.ws('bob'), INBOX_CHANGED, {});
    // both listen once a probe run shows up on both
    const probes: string[] = [];
    const listening = () =>
      probes.some((p) => [stream, control].every((c) => c.events.some((e) => e.inboxChanged.run.id === p)));
    for (let attempt = 0; attempt < 20 && !listening(); attempt++) {
      probes.push(await editorRun('alice', 'Home'));
      await until(listening, 500, 'the probe').catch(() => undefined);
    }
    expect(listening()).toBe(true);
    const seenBefore = stream.events.length;
    const revoked = await t.gql(
      `mutation($id: ID!) { revokeApiToken(tokenId: $id) }`,
      { id: own.tokenId },
      'bob',
    );
    expect(revoked.data).toEqual({ revokeApiToken: true });
    await stream.done;
    expect((stream.errors[0] as { code?: number }).code).toBe(4401);
    const runId = await editorRun('alice', 'About');
    expect(stream.events).toHaveLength(seenBefore);
    // the same event reached a subscriber whose token is valid
    await until(() => control.events.some((e) => e.inboxChanged.run.id === runId), 10_000, 'the control');
    control.unsubscribe();
  });
});
