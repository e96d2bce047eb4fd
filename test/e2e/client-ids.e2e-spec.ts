// why: Apollo Client 3's subpath packages are ESM with a CommonJS build beside them; the CommonJS
// test build imports that one by its file (with the package's own .d.cts types).
import { InMemoryCache } from '@apollo/client/cache/cache.cjs';
import { gql } from '@apollo/client/core/core.cjs';
import { print } from 'graphql';
import { isDeepStrictEqual } from 'node:util';
import { decide, digestOf, receiptOf, sleep, startResting } from '../support/decisions';
import { collect, until, waitForRest } from '../support/runs';
import { useTestApp } from '../support/suite';

const USERS = ['admin', 'alice', 'bob', 'carol', 'dave', 'erin'] as const;

const USER = 'id username displayName locale isAdmin groups { id name grants }';
const CONFIGURATION = `id identifier name isActive requireSecondApprover maxIterations privacyLevel provider model
  skills { id identifier name description isProcess enabled }`;
const PENDING = `kind turn turnDigest waitingSince
  calls { callId toolName writes arguments preview } inputRequest { toolName question schema }`;
const DECISION = `id turn kind decidedBy { ${USER} } denialReason turnDigest path decidedAt outcome`;
const RUN = `id status workspaceId stepCount iterations truncated terminationReason createdAt startedAt finishedAt
  isProcessRun predecessorRunId configuration { ${CONFIGURATION} } owner { ${USER} } pending { ${PENDING} }
  handBack { code at } steps(first: 3) { nodes { sequence kind round } hasMore } answer
  usage { totalTokens } decisions { ${DECISION} }`;
/** A run in a list: the same fields, its configuration shorter (armor's cost limit). */
const RUN_IN_LIST = RUN.replace(
  `configuration { ${CONFIGURATION} }`,
  'configuration { id identifier name isActive }',
);
const LANGUAGE = 'id languageId isoCode title';
const PAGE = `id parentId slug title t1: title(languageId: 1) editableLanguages { ${LANGUAGE} }
  text { languageId workspaceId title body }`;

/** One operation per root field of Query, with every object type that has an id in it. */
function queries(ids: { run: string; conversation: string; page: string; userId: string }) {
  return [
    { query: `{ viewer { grants mayDecideApprovals user { ${USER} } } }` },
    { query: `{ users { ${USER} } }` },
    { query: `{ groups { id name grants } }` },
    {
      query: `{ apiTokens { id label createdAt expiresAt revokedAt owner { ${USER} } createdBy { ${USER} } } }`,
    },
    {
      query: `query($u: ID) { auditEvents(userId: $u, limit: 20) { id action via at actorUsername } }`,
      variables: { u: ids.userId },
    },
    {
      query: `{ sites { id name languages { ${LANGUAGE} } rootPage { ${PAGE} site { id name } children { ${PAGE} children { ${PAGE} } } } } }`,
    },
    {
      query: `query($id: ID!) { page(id: $id) { ${PAGE} site { id name languages { ${LANGUAGE} } } } }`,
      variables: { id: ids.page },
    },
    { query: `{ configurations { ${CONFIGURATION} } }` },
    {
      query: `{ tasks { id identifier name configuration { ${CONFIGURATION} } skills { id identifier name } } }`,
    },
    { query: `{ skillCatalogue { identifier name description isProcess skillId } }` },
    { query: `{ runs(first: 10) { totalCount hasMore nodes { ${RUN_IN_LIST} } } }` },
    { query: `query($id: ID!) { run(id: $id) { ${RUN} } }`, variables: { id: ids.run } },
    {
      query: `{ inbox(first: 10) { id change detailVisible mayApprove decidableHere run { ${RUN_IN_LIST} } } }`,
    },
    {
      query: `{ conversations { id title status createdAt updatedAt owner { ${USER} } messages { id role text } pending { ${PENDING} } } }`,
    },
    {
      query: `query($id: ID!) { conversation(id: $id) { id title status owner { ${USER} } messages { id role text runId } } }`,
      variables: { id: ids.conversation },
    },
    { query: `{ workerStatus { healthy liveWorkers queued decisionsRecorded expiredLeases } }` },
  ];
}

/** The first path where what the cache gives back differs from what the server sent, or null. */
function firstDifference(sent: unknown, read: unknown, path = ''): string | null {
  if (isDeepStrictEqual(sent, read)) return null;
  if (sent && read && typeof sent === 'object' && typeof read === 'object') {
    const keys = new Set([...Object.keys(sent), ...Object.keys(read)]);
    for (const key of keys) {
      const inner = firstDifference(
        (sent as Record<string, unknown>)[key],
        (read as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
      if (inner) return inner;
    }
  }
  return `${path}: sent ${JSON.stringify(sent)?.slice(0, 120)}, cache gives ${JSON.stringify(read)?.slice(0, 120)}`;
}

/**
 * Ids caches can trust (issue 16): Apollo Client's InMemoryCache, normalising by `__typename`
 * and `id`, over real responses of every query as every demo user. Were two distinct objects
 * given one id, the later write would overwrite the earlier one and reading a query back from
 * the cache would differ from what the server sent for it.
 */
describe('ids that caches can trust', () => {
  const { t, ids } = useTestApp();

  const editorRun = (as: string, page = ids.pages.About) =>
    startResting(t, as, {
      configurationId: ids.configurations['demo-editor'],
      prompt: 'Sharpen it',
      subjectPageId: page,
    });
  const approve = async (as: string, runId: string) => {
    receiptOf(await decide(t, 'approve', as, { runId, turnDigest: await digestOf(t, runId) }));
    await waitForRest(t, runId);
  };

  it('InMemoryCache merges no two distinct objects, for every query and every demo user', async () => {
    const own = await editorRun('alice');
    await approve('alice', own); // decided by its owner
    const other = await editorRun('alice');
    await approve('bob', other); // decided by an approver
    await editorRun('alice');
    await editorRun('carol');
    await startResting(
      t,
      'alice',
      { configurationId: ids.configurations['demo-question'], prompt: 'Ask me' },
      'WAITING_FOR_INPUT',
    );
    const created = await t.gql<{ createConversation: { id: string } }>(
      'mutation($input: CreateConversationInput!) { createConversation(input: $input) { id } }',
      { input: { pageId: ids.pages.About, languageId: 1, title: 'About the About page' } },
      'alice',
    );
    expect(created.errors).toBeUndefined();
    const operations = queries({
      run: own,
      conversation: created.data!.createConversation.id,
      page: ids.pages.About!,
      userId: ids.users.alice!,
    });

    const problems: string[] = [];
    const written: Record<string, number> = {};
    const refused: string[] = [];
    for (const as of USERS) {
      const cache = new InMemoryCache();
      const sent: Array<{
        document: ReturnType<typeof gql>;
        variables?: Record<string, unknown>;
        data: unknown;
      }> = [];
      for (const op of operations) {
        // why: the cache adds __typename to every selection, as Apollo Client does before it sends.
        const document = cache.transformDocument(gql(op.query));
        const res = await t.gql(print(document), op.variables, as);
        if (!res.data) {
          // refused as a whole (admins only, the chat): nothing to cache
          refused.push(
            `${as}: ${op.query.slice(0, 30)} ${JSON.stringify(res.errors?.map((e) => e.message))}`,
          );
          continue;
        }
        cache.writeQuery({ query: document, variables: op.variables, data: res.data });
        sent.push({ document, variables: op.variables, data: res.data });
        written[as] = (written[as] ?? 0) + 1;
      }
      for (const { document, variables, data } of sent) {
        const read = cache.readQuery({ query: document, variables });
        // why: plain JSON on both sides (the cache's result objects are not plain objects)
        const where = firstDifference(JSON.parse(JSON.stringify(data)), JSON.parse(JSON.stringify(read)));
        if (where) problems.push(`${as}: ${print(document).replace(/\s+/g, ' ').slice(0, 50)}…: ${where}`);
      }
      // the cache did normalise: runs are cached by their id for everyone who may see them
      if (as !== 'dave' && as !== 'erin')
        expect(Object.keys(cache.extract()).some((k) => k.startsWith('Run:'))).toBe(true);
    }
    expect(problems).toEqual([]);
    // every query answered admins (so none is malformed), and the rest answered everyone else but the admin and chat operations
    expect(refused.filter((r) => r.startsWith('admin:'))).toEqual([]);
    for (const as of USERS) expect(written[as]).toBeGreaterThanOrEqual(operations.length - 8);
  });

  it('inboxChanged: ADDED when a run starts waiting, REMOVED when it is decided; ids match the inbox query', async () => {
    const stream = collect<{
      inboxChanged: { id: string; change: string | null; run: { id: string; status: string } };
    }>(t.ws('bob'), 'subscription { inboxChanged { id change run { id status } } }', {});
    await sleep(300); // the subscription is active before the run starts waiting
    const runId = await editorRun('alice');
    const events = () => stream.events.map((e) => e.inboxChanged).filter((e) => e.run.id === runId);
    await until(() => events().some((e) => e.change === 'ADDED'), 10_000, 'ADDED');
    const inbox = await t.gql<{ inbox: Array<{ id: string; change: string | null; run: { id: string } }> }>(
      '{ inbox { id change run { id } } }',
      {},
      'bob',
    );
    const listed = inbox.data!.inbox.find((i) => i.run.id === runId)!;
    expect(listed.change).toBeNull();
    expect(events()[0]).toMatchObject({
      id: listed.id,
      change: 'ADDED',
      run: { status: 'WAITING_FOR_APPROVAL' },
    });
    // another viewer's item of the same run has its own id
    const carols = await t.gql<{ inbox: Array<{ id: string; run: { id: string } }> }>(
      '{ inbox { id run { id } } }',
      {},
      'carol',
    );
    expect(carols.data!.inbox.find((i) => i.run.id === runId)!.id).not.toBe(listed.id);

    await approve('carol', runId);
    await until(() => events().some((e) => e.change === 'REMOVED'), 10_000, 'REMOVED');
    stream.unsubscribe();
    const changes = events().map((e) => e.change);
    expect(changes[0]).toBe('ADDED');
    expect(changes.at(-1)).toBe('REMOVED');
    expect(events().every((e) => e.id === listed.id)).toBe(true);
    expect(events().find((e) => e.change === 'REMOVED')!.run.status).not.toMatch(/^WAITING_/);
  });
});
