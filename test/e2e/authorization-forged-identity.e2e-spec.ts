// The authorisation suite, identities (test/support/authorization-fixture.ts builds the fixture
// and says what the suite is): nothing a client sends names the decider or the owner. Forged
// fields are refused as a whole; the decider, the submitter and the owner recorded are always
// the token's user, whatever the request carries around it.
import { describeAuthorization } from '../support/authorization-fixture';
import {
  CREATE_CONVERSATION,
  DECIDE_IN_CHAT,
  expectRefused,
  Json,
  SEND,
  START,
} from '../support/authorization-rules';
import { APPROVE, createToken, DENY, SUBMIT } from '../support/decisions';
import { waitForRest } from '../support/runs';

describeAuthorization({}, (fx) => {
  const { gql, unchanged, editor } = fx;

  describe('nothing a client sends names the decider or the owner', () => {
    const forged = (extra: Json): Array<[string, Json]> =>
      Object.entries(extra).map(([k, v]) => [k, { [k]: v }]);

    /** Who the run's steps of `kind` record in `field` (as strings). */
    async function recordedIn(runId: string, kind: string, field: string): Promise<string[]> {
      const steps: Array<{ payload: Json }> = await fx.t.dataSource.query(
        'SELECT payload FROM run_step WHERE run_id = $1 AND kind = $2',
        [runId, kind],
      );
      return steps.map((s) => String(s.payload[field]));
    }

    /** The run's owner id (as a string). */
    async function ownerOf(runId: string): Promise<string> {
      const [owner] = await fx.t.dataSource.query('SELECT owner_id FROM run WHERE id = $1', [runId]);
      return String(owner.owner_id);
    }

    it('forged decidedBy / ownerId / userId fields in decisions are refused as a whole; nothing changes', async () => {
      const run = fx.runs.find((r) => r.name === 'carol’s waiting run')!;
      const input = run.id;
      const fields = forged({
        decidedBy: fx.ids.users.admin,
        userId: fx.ids.users.admin,
        ownerId: fx.ids.users.bob,
        submittedBy: 'admin',
      });
      await unchanged(async () => {
        for (const [field, extra] of fields) {
          for (const [operation, query] of [
            ['approveRun', APPROVE],
            ['denyRun', DENY],
          ] as const) {
            const res = await gql(
              query,
              { input: { runId: input, turnDigest: run.digest, ...extra } },
              'bob',
            );
            expectRefused(res, 'BAD_USER_INPUT', `${operation} with ${field}`);
          }
          const inline = await fx.t.gql(
            `mutation { approveRun(input: { runId: "${input}", turnDigest: "${run.digest}", ${field}: "1" }) { path } }`,
            {},
            'bob',
          );
          // an unknown field in a literal is a validation error of the document (Apollo's code)
          expectRefused(inline, 'GRAPHQL_VALIDATION_FAILED', `inline approveRun with ${field}`);
          const chat = await gql(
            DECIDE_IN_CHAT,
            {
              input: {
                conversationId: fx.conversations[0]!.id,
                turnDigest: fx.conversations[0]!.digest,
                approve: true,
                ...extra,
              },
            },
            'alice',
          );
          expectRefused(chat, 'BAD_USER_INPUT', `decideConversationApproval with ${field}`);
        }
        // values the input schema does not declare are no way in either
        const dave = fx.runs.find((r) => r.name === 'dave’s run waiting for input')!;
        const values = await gql(
          SUBMIT,
          {
            input: {
              runId: dave.id,
              turnDigest: dave.digest,
              values: { tone: 'formal', submittedBy: fx.ids.users.admin },
            },
          },
          'bob',
        );
        expectRefused(values, 'INVALID_INPUT', 'submitRunInput with submittedBy in the values');
      });
    });

    it('a decision by carol records carol as the decider, whatever the request carries around it', async () => {
      const run = fx.runs.find((r) => r.name === 'alice’s waiting run')!;
      const res = await fx.t.gql<{ approveRun: { decision: { decidedBy: { username: string } } } }>(
        APPROVE,
        {
          input: { runId: run.id, turnDigest: run.digest },
          decidedBy: fx.ids.users.admin,
          userId: fx.ids.users.admin,
        },
        'carol',
      );
      expect(res.errors).toBeUndefined();
      expect(res.data!.approveRun.decision.decidedBy.username).toBe('carol');
      expect(await waitForRest(fx.t, run.id)).toBe('COMPLETED');
      const rows = await fx.t.dataSource.query(
        `SELECT u.username FROM decision d JOIN app_user u ON u.id = d.decided_by WHERE d.run_id = $1`,
        [run.id],
      );
      expect(rows).toEqual([{ username: 'carol' }]);
      expect(await recordedIn(run.id, 'APPROVAL', 'decidedBy')).toEqual([fx.ids.users.carol]);
      expect(await ownerOf(run.id)).toBe(fx.ids.users.alice);
    });

    it('an input submitted by bob records bob', async () => {
      const run = fx.runs.find((r) => r.name === 'dave’s run waiting for input')!;
      const res = await gql<{ submitRunInput: { decision: { decidedBy: { username: string } } } }>(
        SUBMIT,
        { input: { runId: run.id, turnDigest: run.digest, values: { tone: 'casual' } } },
        'bob',
      );
      expect(res.errors).toBeUndefined();
      expect(res.data!.submitRunInput.decision.decidedBy.username).toBe('bob');
      expect(await waitForRest(fx.t, run.id)).toBe('COMPLETED');
      const [decision] = await fx.t.dataSource.query('SELECT decided_by FROM decision WHERE run_id = $1', [
        run.id,
      ]);
      expect(String(decision.decided_by)).toBe(fx.ids.users.bob);
      expect(await recordedIn(run.id, 'INPUT', 'submittedBy')).toEqual([fx.ids.users.bob]);
      expect(await ownerOf(run.id)).toBe(fx.ids.users.dave);
    });

    it('startRun and createConversation: a forged owner is refused; the owner is always the caller', async () => {
      await unchanged(async () => {
        for (const [field, extra] of forged({
          ownerId: fx.ids.users.admin,
          userId: fx.ids.users.admin,
          owner: 'admin',
        })) {
          const start = await gql(
            START,
            { input: { configurationId: editor(), prompt: 'mine?', ...extra } },
            'dave',
          );
          expectRefused(start, 'BAD_USER_INPUT', `startRun with ${field}`);
          const create = await gql(CREATE_CONVERSATION, { input: { title: 'mine?', ...extra } }, 'dave');
          expectRefused(create, 'BAD_USER_INPUT', `createConversation with ${field}`);
          const send = await gql(
            SEND,
            { input: { conversationId: fx.conversations[2]!.id, text: 'mine?', ...extra } },
            'dave',
          );
          expectRefused(send, 'BAD_USER_INPUT', `sendMessage with ${field}`);
        }
      });
      // a request that carries an identity anywhere but the token still acts as the token's user
      const res = await fetch(fx.t.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${fx.t.tokens.dave}`,
          'x-user-id': fx.ids.users.admin!,
          'x-forwarded-user': 'admin',
        },
        body: JSON.stringify({
          query: `mutation($input: StartRunInput!, $c: CreateConversationInput!) {
            startRun(input: $input) { id owner { username } }
            createConversation(input: $c) { id owner { username } } }`,
          variables: { input: { configurationId: editor(), prompt: 'whose?' }, c: { title: 'whose?' } },
          extensions: { userId: fx.ids.users.admin, user: 'admin' },
        }),
      });
      const body = (await res.json()) as {
        data: {
          startRun: { id: string; owner: { username: string } };
          createConversation: { id: string; owner: { username: string } };
        };
        errors?: unknown;
      };
      expect(body.errors).toBeUndefined();
      expect(body.data.startRun.owner.username).toBe('dave');
      expect(body.data.createConversation.owner.username).toBe('dave');
      const [run] = await fx.t.dataSource.query('SELECT owner_id FROM run WHERE id = $1', [
        body.data.startRun.id,
      ]);
      const [conversation] = await fx.t.dataSource.query('SELECT owner_id FROM conversation WHERE id = $1', [
        body.data.createConversation.id,
      ]);
      expect([String(run.owner_id), String(conversation.owner_id)]).toEqual([
        fx.ids.users.dave,
        fx.ids.users.dave,
      ]);
      await waitForRest(fx.t, body.data.startRun.id);
    });

    it('createApiToken for oneself makes a token of oneself only', async () => {
      const own = await createToken(fx.t, fx.ids.users.erin!, 'erin');
      const viewer = await gql<{ viewer: { user: { username: string } } }>(
        '{ viewer { user { username } } }',
        {},
        own.token,
      );
      expect(viewer.data!.viewer.user.username).toBe('erin');
      const [row] = await fx.t.dataSource.query('SELECT user_id FROM api_token WHERE id = $1', [own.tokenId]);
      expect(String(row.user_id)).toBe(fx.ids.users.erin);
    });
  });
});
