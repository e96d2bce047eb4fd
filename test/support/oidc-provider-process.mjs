// A real OpenID provider (the certified `oidc-provider` package) for the tests, in its own
// process: the package is ESM-only and the tests run as CommonJS under jest. It signs with the
// private JWKS it is given and serves discovery and the public keys; it prints its issuer once
// it listens. For the browser test it also runs the authorisation code flow with PKCE for the
// public client `countersign-web` (its development login form takes any name and password) and
// issues JWT access tokens for the API with the name as `preferred_username` and the groups of
// OIDC_TEST_GROUPS.
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_TEST_PORT);
const issuer = `http://127.0.0.1:${port}`;
const audience = process.env.OIDC_TEST_AUDIENCE ?? 'urn:countersign:api';
const groups = JSON.parse(process.env.OIDC_TEST_GROUPS ?? '[]');

const account = (id) => ({
  accountId: id,
  claims: () => ({ sub: id, preferred_username: id, name: id, groups }),
});

const provider = new Provider(issuer, {
  jwks: JSON.parse(process.env.OIDC_TEST_JWKS ?? '{"keys":[]}'),
  clients: [
    {
      client_id: 'countersign-web',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: (process.env.OIDC_TEST_REDIRECTS ?? 'http://127.0.0.1/callback').split(','),
    },
  ],
  pkce: { required: () => true },
  claims: { openid: ['sub'], profile: ['preferred_username', 'name', 'groups'] },
  findAccount: (_ctx, id) => account(id),
  features: {
    resourceIndicators: {
      enabled: true,
      defaultResource: () => audience,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: 'api',
        audience,
        accessTokenFormat: 'jwt',
        accessTokenTTL: Number(process.env.OIDC_TEST_ACCESS_TTL ?? 300),
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
  // why: a refresh token for the web client without offline_access (which needs prompt=consent),
  // so its silent renewal can be tested.
  issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  extraTokenClaims: (_ctx, token) => ({ preferred_username: token.accountId, groups }),
});
provider.listen(port, '127.0.0.1');
process.stdout.write(`ready ${issuer}\n`);
