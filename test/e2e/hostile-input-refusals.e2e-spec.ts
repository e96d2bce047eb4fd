// Hostile input refused (issue 7): every mutation of schema.gql, every argument, fuzzed from one
// table (test/support/hostile-input-mutations.ts) with wrong types, missing and null values,
// empty, over-long and 1 MB strings, NUL bytes, malformed and unknown ids, unknown enum values,
// out-of-range integers and JSON too deep or too large (test/support/hostile-input-cases.ts);
// then the same in inline literals, and over-limit documents under concurrent legitimate
// traffic. Each case is refused with a contract code, writes nothing, logs no error, and leaves
// the server answering. hostile-input-baselines.e2e-spec.ts shows each mutation's baseline is
// accepted, so every refusal here came from the fuzzed value alone; hostile-input-logging how
// refusals and faults are logged. limits.e2e-spec.ts covers each document limit once over both
// transports; here the limits are hit by mutations (nothing written).
import { scriptWith, type Vars } from '../support/hostile-input-args';
import { bodyOf, casesOf, nested, NUL, overFull, withArg, type Case } from '../support/hostile-input-cases';
import { MUTATIONS } from '../support/hostile-input-mutations';
import { hostileInputApp, overWs, problemsOf, REFUSED_INPUT } from '../support/hostile-input';

describe('hostile input', () => {
  const h = hostileInputApp();

  describe.each(MUTATIONS.map((m) => [m.name, m] as const))('%s', (_name, spec) => {
    it.each(spec.args.map((a) => [a.name, a] as const))(
      'refuses every hostile %s with a code and writes nothing',
      async (_arg, arg) => {
        const base = spec.base(h.f);
        const before = await h.fingerprint();
        const cases = [...casesOf(arg), overFull(spec, base, arg)].filter((c): c is Case => c !== null);
        const problems: string[] = [];
        for (const c of cases) {
          const vars = withArg(spec, base, arg.name, c.value);
          const answer = await h.post(bodyOf({ query: spec.document, variables: vars }), spec.as);
          for (const p of problemsOf(answer, spec.name, c)) problems.push(`${arg.name} = ${c.label}: ${p}`);
          const after = await h.fingerprint();
          for (const table of Object.keys({ ...before, ...after })) {
            if (before[table] !== after[table]) problems.push(`${arg.name} = ${c.label}: wrote to ${table}`);
          }
        }
        expect(problems).toEqual([]);
        expect(await h.alive()).toBe(true);
      },
    );

    it('refuses a missing, null, mistyped or over-full input as a whole', async () => {
      const before = await h.fingerprint();
      const base = spec.base(h.f);
      const wrapper = spec.inputVar;
      const envelopes: Array<[string, Vars | undefined]> = [
        ['no variables', undefined],
        ['empty variables', {}],
        ...(wrapper
          ? ([
              ['a null input', { [wrapper]: null }],
              ['a string input', { [wrapper]: 'x' }],
              ['a list input', { [wrapper]: [base[wrapper]] }],
              ['an unknown field', { [wrapper]: { ...(base[wrapper] as Vars), nope: 1 } }],
            ] as Array<[string, Vars]>)
          : []),
      ];
      const problems: string[] = [];
      for (const [label, variables] of envelopes) {
        const answer = await h.post(JSON.stringify({ query: spec.document, variables }), spec.as);
        for (const p of problemsOf(answer, spec.name, { label, value: null }))
          problems.push(`${label}: ${p}`);
      }
      expect(problems).toEqual([]);
      expect(await h.fingerprint()).toEqual(before);
    });
  });

  describe('inline literals (parsed from the document, not coerced from variables)', () => {
    const cases: Array<[string, string, string]> = [
      [
        'a NUL escape in a string',
        'admin',
        'mutation { upsertSkill(input: { identifier: "nul-skill", name: "a\\u0000b", body: "b" }) { id } }',
      ],
      [
        'a NUL escape in a block string',
        'admin',
        'mutation { upsertSkill(input: { identifier: "nul-skill", name: "n", body: """a\u0000b""" }) { id } }',
      ],
      [
        'a NUL escape inside a JSON literal',
        'admin',
        'mutation { upsertConfiguration(input: { identifier: "nul-configuration", name: "n", provider: "scripted", model: "m", providerOptions: { rounds: [{ text: "a\\u0000b" }] } }) { id } }',
      ],
      [
        'a JSON literal 64 levels deep',
        'admin',
        `mutation { upsertConfiguration(input: { identifier: "deep-configuration", name: "n", provider: "scripted", model: "m", providerOptions: { rounds: [{ toolCalls: [{ name: "pages_read", arguments: ${'{ a: '.repeat(64)}1${' }'.repeat(64)} }] }] } }) { id } }`,
      ],
      [
        'an Int literal of 2^31',
        'admin',
        'mutation { upsertTask(input: { identifier: "big-task", name: "n", configurationIdentifier: "demo-editor", priority: 2147483648 }) { id } }',
      ],
      [
        'an Int literal of 2^53',
        'alice',
        'mutation { startRun(input: { configurationId: "1", prompt: "p", maxIterations: 9007199254740992 }) { id } }',
      ],
      [
        'an unknown enum literal',
        'admin',
        'mutation { upsertConfiguration(input: { identifier: "enum-configuration", name: "n", provider: "scripted", model: "m", privacyLevel: NOPE }) { id } }',
      ],
      [
        'a string literal for an enum',
        'admin',
        'mutation { upsertConfiguration(input: { identifier: "enum-configuration", name: "n", provider: "scripted", model: "m", privacyLevel: "FULL" }) { id } }',
      ],
      [
        'a string literal for an Int',
        'admin',
        'mutation { upsertTask(input: { identifier: "str-task", name: "n", configurationIdentifier: "demo-editor", priority: "1" }) { id } }',
      ],
      ['a float literal for an ID', 'alice', 'mutation { cancelRun(runId: 1.5) { id } }'],
      [
        'a run id of 36 characters that is no UUID',
        'carol',
        `mutation { approveRun(input: { runId: "${'-'.repeat(36)}", turnDigest: "d" }) { path } }`,
      ],
      [
        'a numeric id past the largest serial',
        'alice',
        'mutation { startRun(input: { configurationId: "2147483648", prompt: "p" }) { id } }',
      ],
      [
        'a numeric id with a leading zero',
        'admin',
        '{ runs(first: 1, filter: { ownerId: "007" }) { totalCount } }',
      ],
      [
        'a missing required field',
        'admin',
        'mutation { upsertSkill(input: { identifier: "missing-skill", name: "n" }) { id } }',
      ],
      ['a missing required argument', 'admin', 'mutation { createApiToken(label: "l") { tokenId } }'],
    ];
    it.each(cases)('refuses %s', async (_label, as, query) => {
      const before = await h.fingerprint();
      const answer = await h.post(JSON.stringify({ query }), as);
      expect(problemsOf(answer, '', { label: '', value: null })).toEqual([]);
      expect(await h.fingerprint()).toEqual(before);
    });
  });

  describe('over-limit documents, interleaved with legitimate traffic', () => {
    const createUser = (i: number, selection = 'id'): string =>
      `createUser(input: { username: "limit-user-${i}" }) { ${selection} }`;
    const deep = `{ __type(name: "Query") { fields { type ${'{ ofType '.repeat(7)}{ name }${' }'.repeat(7)} } } }`;
    const costly = (() => {
      let inner = 'name';
      for (let i = 0; i < 7; i++) inner = `${'...T '.repeat(10)}ofType { ${inner} }`;
      return `{ __type(name: "Query") { ${inner} } } fragment T on __Type { name kind description specifiedByURL }`;
    })();
    const overLimit: Array<[string, string]> = [
      [
        '16 aliased createUser',
        `mutation { ${Array.from({ length: 16 }, (_, i) => `u${i}: ${createUser(i)}`).join(' ')} }`,
      ],
      ['a createUser of 2001 tokens', `mutation { ${createUser(20, 'id '.repeat(1990))} }`],
      [
        'a createUser with 51 directives',
        `mutation { ${createUser(21, Array.from({ length: 51 }, (_, i) => `f${i}: id @include(if: true)`).join(' '))} }`,
      ],
      ['a mutation beside a query 11 deep', `mutation { ${createUser(22)} } query Deep ${deep}`],
      ['a query 11 deep', deep],
      ['a query over the cost limit', costly],
      ['a syntax error after a createUser', `mutation { ${createUser(23)} `],
    ];
    const batch = JSON.stringify([
      { query: `mutation { ${createUser(24)} }` },
      { query: `mutation { ${createUser(25)} }` },
    ]);
    const viewer = JSON.stringify({ query: '{ viewer { user { username } } }' });

    it('refuses each (BAD_USER_INPUT or a document code) while concurrent legitimate queries keep answering', async () => {
      const before = await h.fingerprint();
      const [legit, refused] = await Promise.all([
        Promise.all(Array.from({ length: 16 }, () => h.post(viewer, 'bob'))),
        Promise.all([...overLimit.map(([, query]) => h.post(JSON.stringify({ query }))), h.post(batch)]),
      ]);
      for (const answer of legit) {
        expect(answer.status).toBe(200);
        expect(answer.body?.data).toEqual({ viewer: { user: { username: 'bob' } } });
      }
      const labels = [...overLimit.map(([label]) => label), 'a batch of two createUser'];
      const problems = refused.flatMap((answer, i) => [
        ...(answer.status === 400 ? [] : [`${labels[i]}: HTTP ${answer.status}`]),
        ...problemsOf(answer, 'createUser', { label: '', value: null }).map((p) => `${labels[i]}: ${p}`),
      ]);
      expect(problems).toEqual([]);
      expect(await h.fingerprint()).toEqual(before);
    });

    it('keeps a legitimate mutation working between over-limit ones', async () => {
      for (const [label, query] of overLimit) {
        const refused = await h.post(JSON.stringify({ query }));
        expect([label, refused.status]).toEqual([label, 400]);
        const skill = await h.post(
          JSON.stringify({
            query: 'mutation($i: SkillInput!) { upsertSkill(input: $i) { name } }',
            variables: { i: { identifier: 'interleaved', name: label, body: 'b' } },
          }),
        );
        expect(skill.body?.data).toEqual({ upsertSkill: { name: label } });
      }
      const rows = await h.t.dataSource.query<Array<{ name: string }>>(
        `SELECT name FROM skill WHERE identifier = 'interleaved'`,
      );
      expect(rows).toEqual([{ name: overLimit[overLimit.length - 1]![0] }]);
      const users = await h.t.dataSource.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM app_user WHERE username LIKE 'limit-user-%'`,
      );
      expect(users[0]!.n).toBe(0);
    });

    it('refuses the same over graphql-ws, and NUL or deep input there, on a connection that keeps serving', async () => {
      const client = h.t.ws('admin');
      const viewerQuery = '{ viewer { user { username } } }';
      const upsertSkill = 'mutation($i: SkillInput!) { upsertSkill(input: $i) { id } }';
      const deepOptions = {
        identifier: 'ws-deep',
        name: 'n',
        provider: 'scripted',
        model: 'm',
        providerOptions: scriptWith(nested(64, 'object')),
      };
      const before = await h.fingerprint();
      const hostile: Array<[string, string, Vars | undefined]> = [
        ...overLimit.map(([label, query]): [string, string, undefined] => [label, query, undefined]),
        ['a NUL in a variable', upsertSkill, { i: { identifier: 'ws-nul', name: NUL, body: 'b' } }],
        [
          'a NUL in a literal',
          'mutation { upsertSkill(input: { identifier: "ws-nul", name: "a\\u0000b", body: "b" }) { id } }',
          undefined,
        ],
        [
          'JSON 64 levels deep',
          'mutation($i: ConfigurationInput!) { upsertConfiguration(input: $i) { id } }',
          { i: deepOptions },
        ],
      ];
      const [legit, refused] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, () => overWs(client, viewerQuery))),
        Promise.all(hostile.map(([, query, variables]) => overWs(client, query, variables))),
      ]);
      for (const answer of legit)
        expect(answer).toEqual({ data: { viewer: { user: { username: 'admin' } } } });
      const problems = refused.flatMap((answer, i) => {
        const codes = answer.errors?.map((e) => e.extensions?.code) ?? [];
        return codes.length > 0 && codes.every((c) => REFUSED_INPUT.has(String(c)))
          ? []
          : [`${hostile[i]![0]}: ${JSON.stringify(answer)}`];
      });
      expect(problems).toEqual([]);
      expect(await h.fingerprint()).toEqual(before);
      expect(await overWs(client, viewerQuery)).toEqual({
        data: { viewer: { user: { username: 'admin' } } },
      });
    });
  });

  it('logged no error for any of these refusals', () => {
    expect(h.errorLog.mock.calls).toEqual([]);
  });
});
