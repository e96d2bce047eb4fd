import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { freePort } from '../../bench/support/free-port';
import { exportJWK, generateKeyPair, type JWTPayload, type KeyLike, SignJWT } from 'jose';

/** The audience the tests configure the server with. */
export const TEST_AUDIENCE = 'urn:countersign:api';

interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyLike;
}

/** The options of one test token: claims to add or override, and header tweaks. */
export interface TokenOptions {
  readonly claims?: JWTPayload & Record<string, unknown>;
  /** Seconds from now until `exp` (default 300); negative for an expired token. */
  readonly expiresIn?: number;
  /** Seconds from now of `nbf` (absent by default). */
  readonly notBefore?: number;
  /** The RSA algorithm to sign with (default RS256). */
  readonly alg?: 'RS256' | 'RS384' | 'PS256';
}

/**
 * Runs `oidc-provider` in a child process with keys generated here, so the tests sign the
 * tokens the provider's discovery and JWKS vouch for (any claims, any expiry) without a login
 * form. `rotate` restarts it on the same port with a fresh key: the old key is gone.
 */
export class TestOidcProvider {
  private child: ChildProcess | null = null;
  private key: SigningKey | null = null;
  private generation = 0;

  private constructor(readonly port: number) {}

  /** The redirect URIs and groups the provider's browser flow uses (set before `rotate`). */
  browserFlow: { redirectUris: string[]; groups: string[]; accessTokenSeconds?: number } = {
    redirectUris: [],
    groups: [],
  };

  static async start(): Promise<TestOidcProvider> {
    const provider = await TestOidcProvider.create();
    await provider.rotate();
    return provider;
  }

  /** A provider with its port chosen but not started (`rotate` starts it). */
  static async create(): Promise<TestOidcProvider> {
    return new TestOidcProvider(await freePort());
  }

  get issuer(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The server settings that trust this provider. */
  settings(extra: Record<string, string> = {}): Record<string, string> {
    return {
      OIDC_ISSUER: this.issuer,
      OIDC_AUDIENCE: TEST_AUDIENCE,
      OIDC_GROUPS_CLAIM: 'groups',
      OIDC_AUTO_CREATE_USERS: 'true',
      OIDC_CLOCK_SKEW_SECONDS: '5',
      ...extra,
    };
  }

  /** A token for `sub` signed with the provider's current key (RS256). */
  async token(sub: string, options: TokenOptions = {}): Promise<string> {
    const key = this.key;
    if (!key) throw new Error('provider not started');
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ ...options.claims })
      .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: key.kid, typ: 'JWT' })
      .setSubject(sub)
      .setIssuer(this.issuer)
      .setAudience(TEST_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + (options.expiresIn ?? 300));
    if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
    if (options.claims?.iss) jwt.setIssuer(String(options.claims.iss));
    if (options.claims?.aud) jwt.setAudience(options.claims.aud);
    return jwt.sign(key.privateKey);
  }

  /** A token signed with a key the provider never published (same kid): a forgery. */
  async forged(sub: string, kid = this.key?.kid): Promise<string> {
    const { privateKey } = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid })
      .setSubject(sub)
      .setIssuer(this.issuer)
      .setAudience(TEST_AUDIENCE)
      .setExpirationTime(now + 300)
      .sign(privateKey);
  }

  /** Restarts the provider with a new signing key (a new kid); the previous key is withdrawn. */
  async rotate(): Promise<void> {
    await this.stop();
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const kid = `test-key-${++this.generation}`;
    const jwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
    this.key = { kid, privateKey };
    const child = spawn(process.execPath, [join(__dirname, 'oidc-provider-process.mjs')], {
      env: {
        ...process.env,
        OIDC_TEST_PORT: String(this.port),
        OIDC_TEST_JWKS: JSON.stringify({ keys: [jwk] }),
        OIDC_TEST_AUDIENCE: TEST_AUDIENCE,
        OIDC_TEST_REDIRECTS: this.browserFlow.redirectUris.join(','),
        OIDC_TEST_GROUPS: JSON.stringify(this.browserFlow.groups),
        OIDC_TEST_ACCESS_TTL: String(this.browserFlow.accessTokenSeconds ?? 300),
      },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the test OpenID provider exited (${code})`)));
      child.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) resolve();
      });
    });
    await waitForDiscovery(this.issuer);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    child.removeAllListeners('exit');
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

async function waitForDiscovery(issuer: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const ok = await fetch(`${issuer}/.well-known/openid-configuration`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the test OpenID provider did not answer discovery');
}

/** Maps a value of the groups claim to a demo group by name (as an admin would). */
export async function mapIdentityGroup(
  dataSource: DataSource,
  claimValue: string,
  group: string,
  grantsAdmin = false,
): Promise<void> {
  await dataSource.query(
    `INSERT INTO identity_group_mapping (claim_value, group_id, grants_admin)
     SELECT $1, id, $3 FROM access_group WHERE name = $2`,
    [claimValue, group, grantsAdmin],
  );
}
