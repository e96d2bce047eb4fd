// A real OpenID provider (the certified `oidc-provider` package) for the tests, in its own
// process: the package is ESM-only and the tests run as CommonJS under jest. It signs with the
// private JWKS it is given and serves discovery and the public keys; it prints its issuer once
// it listens.
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_TEST_PORT);
const issuer = `http://127.0.0.1:${port}`;
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
});
provider.listen(port, '127.0.0.1');
process.stdout.write(`ready ${issuer}\n`);
