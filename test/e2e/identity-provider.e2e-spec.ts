import { createHmac } from 'node:crypto';
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';
import { mapIdentityGroup, TEST_AUDIENCE, TestOidcProvider } from '../support/oidc-provider';

const VIEWER = '{ viewer { user { username displayName locale isAdmin groups { name } } } }';

interface ViewerData {
  viewer: {
    user: {
      username: string;
      displayName: string;
      locale: string;
      isAdmin: boolean;
      groups: { name: string }[];
    };
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sign-in through an OpenID provider (a real oidc-provider)', () => {
  let idp: TestOidcProvider;
  beforeAll(async () => {
    idp = await TestOidcProvider.start();
  });
  const clients: Client[] = [];
  const { t } = useTestApp(() => idp.settings(), {
    beforeClose: async () => {
      for (const c of clients) await c.dispose();
    },
  });
  afterAll(async () => {
    await idp?.stop();
  });

  const count = async (table: string): Promise<number> =>
    Number((await t.dataSource.query<{ n: string }[]>(`SELECT count(*) AS n FROM ${table}`))[0]?.n);
  const map = (claimValue: string, group: string, grantsAdmin = false) =>
    mapIdentityGroup(t.dataSource, claimValue, group, grantsAdmin);

  /** A client that keeps its connection open between operations (not lazy). */
  const stayingClient = (jwt: string): Client => {
    const client = createClient({
      url: t.wsUrl,
      webSocketImpl: WebSocket,
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: () => undefined,
      connectionParams: { authorization: `Bearer ${jwt}` },
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    await map('cs-approvers', 'approvers');
    await map('cs-admins', 'editors', true);
  });

  it('creates the user on the first sign-in from the standard claims, linked by subject, with mapped groups', async () => {
    const users = await count('app_user');
    const jwt = await idp.token('sub-ada', {
      claims: {
        preferred_username: 'Ada',
        name: 'Ada Lovelace',
        email: 'ada@example.org',
        locale: 'de',
        groups: ['cs-approvers', 'unmapped'],
      },
    });
    const res = await t.gql<ViewerData>(VIEWER, {}, jwt);
    expect(res.errors).toBeUndefined();
    expect(res.data?.viewer.user).toEqual({
      username: 'ada',
      displayName: 'Ada Lovelace',
      locale: 'de',
      isAdmin: false,
      groups: [{ name: 'approvers' }],
    });
    expect(await count('app_user')).toBe(users + 1);
    const [row] = await t.dataSource.query<
      { identity_issuer: string; identity_subject: string; email: string }[]
    >(`SELECT identity_issuer, identity_subject, email FROM app_user WHERE username = 'ada'`);
    expect(row).toEqual({
      identity_issuer: idp.issuer,
      identity_subject: 'sub-ada',
      email: 'ada@example.org',
    });
    // The same subject again: the same user, no second row.
    await t.gql(VIEWER, {}, await idp.token('sub-ada', { claims: { groups: ['cs-approvers'] } }));
    expect(await count('app_user')).toBe(users + 1);
  });

  it('derives a unique username when the wished one is taken', async () => {
    const res = await t.gql<ViewerData>(
      VIEWER,
      {},
      await idp.token('sub-other-alice', { claims: { preferred_username: 'alice' } }),
    );
    expect(res.data?.viewer.user.username).toBe('alice-2');
  });

  it('lets groups and admin rights follow the token on every sign-in; an unmapped claim grants nothing', async () => {
    const as = async (groups: string[]) =>
      (
        await t.gql<ViewerData>(
          VIEWER,
          {},
          await idp.token('sub-grace', { claims: { preferred_username: 'grace', groups } }),
        )
      ).data?.viewer.user;
    expect(await as(['admin', 'admins', 'approvers'])).toMatchObject({ isAdmin: false, groups: [] });
    expect(await as(['cs-admins', 'cs-approvers'])).toMatchObject({
      isAdmin: true,
      groups: [{ name: 'editors' }, { name: 'approvers' }],
    });
    expect(await as([])).toMatchObject({ isAdmin: false, groups: [] });
  });

  it('lets admins manage the mapping over GraphQL; it counts from the next sign-in; refusals write nothing', async () => {
    const CREATE = `mutation ($input: CreateIdentityGroupMappingInput!) {
      createIdentityGroupMapping(input: $input) { id claimValue grantsAdmin group { name } }
    }`;
    const LIST = '{ identityGroupMappings { id claimValue grantsAdmin group { name } } }';
    const DELETE = 'mutation ($id: ID!) { deleteIdentityGroupMapping(id: $id) }';
    const [interns] = await t.dataSource.query<{ id: number }[]>(
      `SELECT id FROM access_group WHERE name = 'interns'`,
    );
    const rows = await count('identity_group_mapping');
    const created = await t.gql<{
      createIdentityGroupMapping: { id: string; claimValue: string; group: { name: string } };
    }>(CREATE, { input: { claimValue: 'cs-interns', groupId: String(interns!.id) } });
    expect(created.data?.createIdentityGroupMapping).toMatchObject({
      claimValue: 'cs-interns',
      grantsAdmin: false,
      group: { name: 'interns' },
    });
    const viewer = await t.gql<ViewerData>(
      VIEWER,
      {},
      await idp.token('sub-hopper', { claims: { preferred_username: 'hopper', groups: ['cs-interns'] } }),
    );
    expect(viewer.data?.viewer.user.groups).toEqual([{ name: 'interns' }]);

    const refusals = {
      notAdmin: errorCode(
        await t.gql(CREATE, { input: { claimValue: 'x', groupId: String(interns!.id) } }, 'bob'),
      ),
      unknownGroup: errorCode(await t.gql(CREATE, { input: { claimValue: 'x', groupId: '999999' } })),
      duplicate: errorCode(
        await t.gql(CREATE, { input: { claimValue: 'cs-interns', groupId: String(interns!.id) } }),
      ),
      listNotAdmin: errorCode(await t.gql(LIST, {}, 'bob')),
    };
    expect(refusals).toEqual({
      notAdmin: 'FORBIDDEN',
      unknownGroup: 'NOT_FOUND',
      duplicate: 'BAD_USER_INPUT',
      listNotAdmin: 'FORBIDDEN',
    });
    expect(await count('identity_group_mapping')).toBe(rows + 1);

    const list = await t.gql<{ identityGroupMappings: { claimValue: string }[] }>(LIST);
    expect(list.data?.identityGroupMappings.map((m) => m.claimValue)).toEqual([
      'cs-admins',
      'cs-approvers',
      'cs-interns',
    ]);
    const id = created.data!.createIdentityGroupMapping.id;
    expect((await t.gql(DELETE, { id })).data).toEqual({ deleteIdentityGroupMapping: true });
    expect(errorCode(await t.gql(DELETE, { id }))).toBe('NOT_FOUND');
    expect(await count('identity_group_mapping')).toBe(rows);
    const after = await t.gql<ViewerData>(
      VIEWER,
      {},
      await idp.token('sub-hopper', { claims: { groups: ['cs-interns'] } }),
    );
    expect(after.data?.viewer.user.groups).toEqual([]);
  });

  it('keeps personal access tokens working beside JWTs', async () => {
    const res = await t.gql<ViewerData>(VIEWER, {}, 'bob');
    expect(res.data?.viewer.user.username).toBe('bob');
  });

  it('refuses bad tokens with UNAUTHENTICATED and creates nothing', async () => {
    const users = await count('app_user');
    const members = await count('group_member');
    const good = await idp.token('sub-bad');
    const [header, payload] = good.split('.');
    const tampered = [
      header,
      Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'sub-evil' }),
      ).toString('base64url'),
      good.split('.')[2],
    ].join('.');
    const hs256Header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: 'test-key-1' })).toString(
      'base64url',
    );
    const hs256Body = Buffer.from(
      JSON.stringify({
        sub: 'sub-bad',
        iss: idp.issuer,
        aud: TEST_AUDIENCE,
        exp: Math.floor(Date.now() / 1000) + 300,
      }),
    ).toString('base64url');
    const hs256 = `${hs256Header}.${hs256Body}.${createHmac('sha256', 'secret').update(`${hs256Header}.${hs256Body}`).digest('base64url')}`;
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${hs256Body}.`;
    const bad: Record<string, string> = {
      wrongIssuer: await idp.token('sub-bad', { claims: { iss: 'http://127.0.0.1:1/other' } }),
      wrongAudience: await idp.token('sub-bad', { claims: { aud: 'someone-else' } }),
      hs256,
      // the provider's key, but RS384: neither allowed (OIDC_ALLOWED_ALGS) nor the key's algorithm
      rs384NotAllowed: await idp.token('sub-bad', { alg: 'RS384' }),
      none,
      expired: await idp.token('sub-bad', { expiresIn: -60 }),
      notYetValid: await idp.token('sub-bad', { notBefore: 120 }),
      tampered,
      forged: await idp.forged('sub-bad'),
    };
    for (const [name, jwt] of Object.entries(bad)) {
      const res = await t.gql(VIEWER, {}, jwt);
      expect({ name, status: res.status, code: errorCode(res) }).toEqual({
        name,
        status: 401,
        code: 'UNAUTHENTICATED',
      });
    }
    expect(await count('app_user')).toBe(users);
    expect(await count('group_member')).toBe(members);
    const metrics = await (await fetch(new URL('/metrics', t.url))).text();
    const refused = /countersign_identity_sign_ins_total\{outcome="refused"\} (\d+)/.exec(metrics)?.[1];
    expect(Number(refused)).toBeGreaterThanOrEqual(Object.keys(bad).length);
    expect(metrics).toMatch(/countersign_identity_sign_ins_total\{outcome="created"\} [1-9]/);
  });

  it('closes a graphql-ws connection with 4401 when its token expires', async () => {
    const client = stayingClient(await idp.token('sub-ada', { expiresIn: 2 }));
    const closed = new Promise<number>((resolve) =>
      client.on('closed', (e) => resolve((e as { code: number }).code)),
    );
    expect(await viewerOver(client)).toBe('ada');
    const started = Date.now();
    // The clock skew admits the token at connect; the stream still ends at its `exp`.
    expect(await closed).toBe(4401);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('keeps a connection open when the client sends a fresh token in a ping, and authorises with it', async () => {
    const client = stayingClient(await idp.token('sub-ada', { expiresIn: 2 }));
    let code: number | null = null;
    client.on('closed', (e) => (code = (e as { code: number }).code));
    let socket: { send(data: string): void } | null = null;
    client.on('connected', (s) => (socket = s as { send(data: string): void }));
    expect(await viewerOver(client)).toBe('ada');
    const fresh = await idp.token('sub-ada', { expiresIn: 60 });
    socket!.send(JSON.stringify({ type: 'ping', payload: { authorization: `Bearer ${fresh}` } }));
    await sleep(3_000);
    expect(code).toBeNull();
    // why: a change the database announces (NOTIFY) re-checks the stored tokens only; this
    // connection, opened with a JWT now past its expiry and renewed since, stays open.
    await t.dataSource.query('UPDATE access_group SET name = name');
    await sleep(500);
    expect(code).toBeNull();
    expect(await viewerOver(client)).toBe('ada');
    // A token of another user is refused: the connection closes.
    const closed = new Promise<number>((resolve) =>
      client.on('closed', (e) => resolve((e as { code: number }).code)),
    );
    socket!.send(
      JSON.stringify({ type: 'ping', payload: { authorization: `Bearer ${await idp.token('sub-grace')}` } }),
    );
    expect(await closed).toBe(4401);
  });

  it('opens the subscriptions that check their caller afresh (inboxChanged, runEvents) for a JWT caller', async () => {
    const client = stayingClient(
      await idp.token('sub-grace', { claims: { preferred_username: 'grace', groups: ['cs-admins'] } }),
    );
    /** 'open' when the stream is still open after a second, else the code it was refused with. */
    const outcomeOf = (query: string, variables: Record<string, unknown> = {}) =>
      new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('open'), 1_000);
        const end = (code: string) => {
          clearTimeout(timer);
          resolve(code);
        };
        client.subscribe(
          { query, variables },
          {
            // why: a refusal when the stream opens arrives as a result with errors, then complete.
            next: (r) => end(r.errors ? String(r.errors[0]?.extensions?.code) : 'next'),
            error: (e) => end(String((e as Array<{ extensions?: { code?: string } }>)[0]?.extensions?.code)),
            complete: () => end('complete'),
          },
        );
      });
    expect(await outcomeOf('subscription { inboxChanged { id } }')).toBe('open');
    // why: the admin check passes (the mapped group grants admin), so an unknown run is NOT_FOUND.
    const unknown = { runId: '00000000-0000-4000-8000-000000000000' };
    expect(await outcomeOf('subscription ($runId: ID!) { runEvents(runId: $runId) { kind } }', unknown)).toBe(
      'NOT_FOUND',
    );
  });

  it('follows a key rotation: a token with the new kid is verified after the key set is fetched again', async () => {
    await idp.rotate();
    await sleep(2_100);
    const res = await t.gql<ViewerData>(VIEWER, {}, await idp.token('sub-ada'));
    expect(res.data?.viewer.user.username).toBe('ada');
  });

  it('refuses JWTs while the provider cannot be reached (a key set fetch fails); personal access tokens keep working', async () => {
    await idp.stop();
    await sleep(2_100);
    const res = await t.gql(VIEWER, {}, await idp.forged('sub-ada', 'a-kid-never-seen'));
    expect({ status: res.status, code: errorCode(res) }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect((await t.gql<ViewerData>(VIEWER, {}, 'bob')).data?.viewer.user.username).toBe('bob');
  });
});

function viewerOver(client: Client): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let username: string | null = null;
    client.subscribe<ViewerData>(
      { query: VIEWER },
      {
        next: (r) => (username = r.data?.viewer.user.username ?? null),
        error: reject,
        complete: () => resolve(username),
      },
    );
  });
}
