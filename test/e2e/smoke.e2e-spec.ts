import { bootTestApp, errorCode, TestApp } from '../support/test-app';

describe('the booted app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers viewer for a demo user', async () => {
    const res = await t.gql<{ viewer: { user: { username: string }; grants: string[] } }>(
      '{ viewer { user { username } grants mayDecideApprovals } }',
      {},
      'bob',
    );
    expect(res.data?.viewer.user.username).toBe('bob');
    expect(res.data?.viewer.grants).toEqual(['AGENT_APPROVE']);
  });

  it('refuses a request without a token with 401 UNAUTHENTICATED', async () => {
    const res = await t.gql('{ viewer { user { username } } }', {}, null);
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('UNAUTHENTICATED');
  });
});
