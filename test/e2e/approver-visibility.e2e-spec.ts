import { EDITOR_ROUNDS } from '../../src/demo/demo-data';
import { startResting, upsertConfiguration } from '../support/decisions';
import { PagesService } from '../../src/modules/content';
import { errorCode, GqlResponse } from '../support/test-app';
import { useTestApp } from '../support/suite';
import type {
  Configuration,
  Group,
  InboxItem as ApiInboxItem,
  PendingToolCall,
  Run,
  User,
} from '../support/generated/schema';

// What a decider without detail access sees of a waiting run (docs/security.md "What deciders
// see", docs/decisions.md "What the inbox shows"): previews only of pages they may show,
// mayApprove only where the decider gate would pass, the owner's groups and a configuration
// they may not use withheld; the rest of each answer still arrives. Expectations follow the
// demo data (docs/demo-data.md): bob shows and edits Home and below in en/de; nobody but
// admins shows Orphan; the site has a French language nobody but admins may write.

const WITHHELD = 'Preview withheld: the call changes a page you may not show.';
const NEW_TITLE = 'A sharper SEO title';

type Call = Pick<PendingToolCall, 'toolName' | 'arguments' | 'preview'>;
type RunView = Pick<Run, 'id' | 'status'> & {
  owner: Pick<User, 'username'> & { groups: Array<Pick<Group, 'name'>> };
  configuration: Pick<Configuration, 'name' | 'identifier' | 'requireSecondApprover'>;
  pending: { calls: Call[] } | null;
};
type InboxItem = Pick<ApiInboxItem, 'detailVisible' | 'mayApprove' | 'approveRefusal'> & { run: RunView };

const RUN_FIELDS = `id status owner { username groups { name } }
  configuration { name identifier requireSecondApprover }
  pending { calls { toolName arguments preview } }`;
const INBOX = `{ inbox { detailVisible mayApprove approveRefusal run { ${RUN_FIELDS} } } }`;
const RUN = `query($id: ID!) { run(id: $id) { ${RUN_FIELDS} } }`;

describe('what deciders without detail access see', () => {
  const { t, ids } = useTestApp();

  const editorRun = (as: string, page: string, subjectLanguageId = 0) =>
    startResting(t, as, {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'SEO please',
      subjectPageId: ids.pages[page],
      subjectLanguageId,
    });
  const inbox = async (as: string): Promise<GqlResponse<{ inbox: InboxItem[] }>> => {
    const res = await t.gql<{ inbox: InboxItem[] }>(INBOX, {}, as);
    expect(res.errors).toBeUndefined();
    return res;
  };
  const itemOf = (res: GqlResponse<{ inbox: InboxItem[] }>, runId: string): InboxItem => {
    const item = res.data!.inbox.find((i) => i.run.id === runId);
    if (!item) throw new Error(`run ${runId} is not in the inbox`);
    return item;
  };
  const runAs = (as: string, id: string) => t.gql<{ run: RunView | null }>(RUN, { id }, as);

  // First, while it is the only waiting run: the new title appears in no other run's preview.
  it('withholds from bob the preview of a write to a page he may not show, and mayApprove is false', async () => {
    const runId = await editorRun('admin', 'Orphan');
    const res = await inbox('bob');
    const body = JSON.stringify(res);
    expect(body).not.toContain('Orphan page');
    expect(body).not.toContain(NEW_TITLE);
    expect(itemOf(res, runId)).toMatchObject({
      detailVisible: false,
      mayApprove: false,
      approveRefusal: 'APPROVER_NOT_PERMITTED',
      run: {
        status: 'WAITING_FOR_APPROVAL',
        pending: { calls: [{ toolName: 'pages_update', arguments: null, preview: [WITHHELD] }] },
      },
    });

    const read = await runAs('bob', runId);
    expect(read.errors).toBeUndefined();
    expect(JSON.stringify(read)).not.toContain('Orphan page');
    expect(JSON.stringify(read)).not.toContain(NEW_TITLE);
    expect(read.data!.run!.pending!.calls[0]!.preview).toEqual([WITHHELD]);

    // the admin (owner) sees it all; carol may not show Orphan either
    const admins = itemOf(await inbox('admin'), runId);
    expect(admins).toMatchObject({ detailVisible: true, mayApprove: true, approveRefusal: null });
    expect(admins.run.pending!.calls[0]!.preview).toEqual([`seoTitle: "Orphan page" -> "${NEW_TITLE}"`]);
    expect(admins.run.pending!.calls[0]!.arguments).toMatchObject({ seoTitle: NEW_TITLE });
    const carols = itemOf(await inbox('carol'), runId);
    expect(carols).toMatchObject({ mayApprove: false, approveRefusal: 'APPROVER_NOT_PERMITTED' });
    expect(JSON.stringify(carols)).not.toContain('Orphan page');
  });

  it('shows bob the preview of a page he may show and edit, with mayApprove true', async () => {
    const runId = await editorRun('alice', 'About');
    const bobs = itemOf(await inbox('bob'), runId);
    expect(bobs).toMatchObject({ detailVisible: false, mayApprove: true, approveRefusal: null });
    expect(bobs.run.pending!.calls).toEqual([
      { toolName: 'pages_update', arguments: null, preview: [`seoTitle: "About us" -> "${NEW_TITLE}"`] },
    ]);
    const read = await runAs('bob', runId);
    expect(read.data!.run!.pending!.calls[0]!.preview).toEqual([`seoTitle: "About us" -> "${NEW_TITLE}"`]);
    const alices = itemOf(await inbox('alice'), runId);
    expect(alices).toMatchObject({ detailVisible: true, mayApprove: true });
    expect(alices.run.pending!.calls[0]!.arguments).toMatchObject({ seoTitle: NEW_TITLE });
  });

  it('shows bob a page he may show but not write in that language, with mayApprove false', async () => {
    // French (language 2): the admin may write it, bob's group only en and de
    const runId = await editorRun('admin', 'Widget', 2);
    const bobs = itemOf(await inbox('bob'), runId);
    expect(bobs).toMatchObject({ mayApprove: false, approveRefusal: 'APPROVER_NOT_PERMITTED' });
    expect(bobs.run.pending!.calls[0]!.preview).toEqual([`seoTitle: (empty) -> "${NEW_TITLE}"`]);
  });

  it("withholds the owner's groups from bob while the rest of the run still answers", async () => {
    const runId = await editorRun('alice', 'Widget');
    const bobs = await runAs('bob', runId);
    expect(bobs.errors).toBeUndefined();
    expect(bobs.data!.run).toMatchObject({
      id: runId,
      status: 'WAITING_FOR_APPROVAL',
      owner: { username: 'alice', groups: [] },
    });
    expect(JSON.stringify(bobs)).not.toContain('editors');
    const bobsInbox = itemOf(await inbox('bob'), runId);
    expect(bobsInbox.run.owner.groups).toEqual([]);
    // the owner and an admin still see the groups
    for (const who of ['alice', 'admin']) {
      const res = await runAs(who, runId);
      expect(res.data!.run!.owner.groups).toEqual([{ name: 'editors' }]);
    }
    // dave, who may neither read nor decide it, still learns nothing
    expect((await runAs('dave', runId)).data!.run).toBeNull();
  });

  it('withholds from bob a configuration he may not use; the owner and an admin read it', async () => {
    const editors: Array<{ id: number }> = await t.dataSource.query(
      "SELECT id FROM access_group WHERE name = 'editors'",
    );
    const configurationId = await upsertConfiguration(t, {
      identifier: 'editors-only',
      name: 'Editors only',
      requireSecondApprover: true,
      providerOptions: { rounds: EDITOR_ROUNDS },
      allowedGroupIds: [String(editors[0]!.id)],
    });
    const runId = await startResting(t, 'alice', {
      configurationId,
      prompt: 'SEO please',
      subjectPageId: ids.pages.About,
    });
    const bobs = await runAs('bob', runId);
    expect(bobs.errors).toBeUndefined();
    expect(bobs.data!.run).toMatchObject({
      id: runId,
      status: 'WAITING_FOR_APPROVAL',
      configuration: { name: '(withheld)', identifier: '(withheld)', requireSecondApprover: true },
    });
    expect(JSON.stringify(bobs)).not.toMatch(/editors-only|Editors only/);
    expect(JSON.stringify(await inbox('bob'))).not.toMatch(/editors-only|Editors only/);
    for (const who of ['alice', 'admin']) {
      const res = await runAs(who, runId);
      expect(res.data!.run!.configuration).toMatchObject({
        name: 'Editors only',
        identifier: 'editors-only',
      });
    }
    // carol is an editor: she may use it, so she reads it though she has no detail access
    expect((await runAs('carol', runId)).data!.run!.configuration.name).toBe('Editors only');
    expect(errorCode(bobs)).toBeUndefined();
  });

  it('looks the pages of a whole inbox page up in batches, not once per item', async () => {
    // the runs of the tests above still wait: five, each writing a page
    const pages = t.app.get(PagesService);
    const accessOf = jest.spyOn(pages, 'accessOf');
    try {
      const res = await inbox('bob');
      expect(res.data!.inbox.length).toBeGreaterThanOrEqual(5);
      // one batch for the inbox's mayApprove, one for the previews of Run.pending
      expect(accessOf).toHaveBeenCalledTimes(2);
    } finally {
      accessOf.mockRestore();
    }
  });
});
