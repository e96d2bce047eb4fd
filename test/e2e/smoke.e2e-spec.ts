import { errorCode } from '../support/test-app';
import { useTestApp } from '../support/suite';

describe('the booted app', () => {
  const { t } = useTestApp();

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
