import { resolve } from 'node:path';
import { ConfigError, loadConfig } from './app-config';

// why: a fixed key that passes the low-entropy check (a repeated byte would be refused).
const KEY = 'CzhFYr/s2St4FdL/rJlrOOUCP0xZi/jVUn8M3su4hWI=';
const PG = 'postgres://app:secret@db:5432/countersign';

function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) accepted a bad configuration`);
}

describe('loadConfig', () => {
  describe('refuses a bad variable with a ConfigError naming it', () => {
    it.each([
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['PORT', '-1'],
      ['DATABASE_URL', 'mysql://root@db/countersign'],
      ['DATABASE_URL', 'not a url'],
      ['STATE_ENCRYPTION_KEY', 'too-short'],
      ['STATE_ENCRYPTION_KEY', Buffer.alloc(16, 1).toString('base64')],
      ['DECISION_PATH', 'sometimes'],
      ['DB_MIGRATE', 'maybe'],
      ['REDIS_URL', 'http://cache:6379'],
      ['LOG_LEVEL', 'loud'],
      ['LOG_FORMAT', 'fancy'],
      ['METRICS_ENABLED', 'perhaps'],
      ['METRICS_TOKEN', 'short'],
      ['NODE_ENV', 'staging'],
      ['WORKER_CONCURRENCY', '0'],
      ['WORKER_PREFETCH', '-1'],
    ])('%s=%j', (name, value) => {
      const e = configError({ [name]: value });
      expect(e.name).toBe('ConfigError');
      expect(e.problems).toHaveLength(1);
      expect(e.problems[0]).toMatch(new RegExp(`^${name}: `));
      expect(e.message).toContain(name);
    });

    it('names every bad variable at once', () => {
      const e = configError({ PORT: 'x', DATABASE_URL: 'x', STATE_ENCRYPTION_KEY: 'x', DECISION_PATH: 'x' });
      expect(e.problems.map((p) => p.split(':')[0]).sort()).toEqual([
        'DATABASE_URL',
        'DECISION_PATH',
        'PORT',
        'STATE_ENCRYPTION_KEY',
      ]);
      expect(e.message).toMatch(/^Invalid configuration:\n {2}- /);
    });
  });

  it('defaults to the embedded mode: PGlite in ./data, migrations and demo data on, loopback', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      nodeEnv: 'development',
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: null,
      dataDir: resolve('./data'),
      migrate: true,
      seedDemo: true,
      redisUrl: null,
      stateEncryptionKey: null,
      introspection: true,
      corsOrigins: [],
      rateLimitPerMinute: 600,
      logLevel: 'info',
      logFormat: null,
      metricsEnabled: true,
      metricsToken: null,
      decisionPath: 'auto',
      workerConcurrency: 4,
      workerPrefetch: 0,
    });
  });

  it('switches to the real mode with DATABASE_URL: no migrations or demo data unless asked', () => {
    const real = loadConfig({ DATABASE_URL: PG, REDIS_URL: 'redis://cache:6379' });
    expect(real).toMatchObject({
      databaseUrl: PG,
      redisUrl: 'redis://cache:6379',
      migrate: false,
      seedDemo: false,
    });
    const asked = loadConfig({ DATABASE_URL: PG, DB_MIGRATE: 'true', SEED_DEMO: '1' });
    expect(asked).toMatchObject({ migrate: true, seedDemo: true });
    const embeddedOff = loadConfig({ DB_MIGRATE: 'false', SEED_DEMO: 'no', DATA_DIR: '/var/lib/cs' });
    expect(embeddedOff).toMatchObject({
      databaseUrl: null,
      migrate: false,
      seedDemo: false,
      dataDir: '/var/lib/cs',
    });
  });

  it('requires STATE_ENCRYPTION_KEY with DATABASE_URL in production, and only there', () => {
    const e = configError({ NODE_ENV: 'production', DATABASE_URL: PG });
    expect(e.problems).toEqual([expect.stringMatching(/^STATE_ENCRYPTION_KEY: required with DATABASE_URL/)]);
    expect(loadConfig({ NODE_ENV: 'production', DATABASE_URL: PG, STATE_ENCRYPTION_KEY: KEY })).toMatchObject(
      {
        nodeEnv: 'production',
        stateEncryptionKey: KEY,
      },
    );
    expect(loadConfig({ NODE_ENV: 'production' }).stateEncryptionKey).toBeNull();
    expect(loadConfig({ DATABASE_URL: PG }).stateEncryptionKey).toBeNull();
  });

  it('reads the deployment variables as given', () => {
    const c = loadConfig({
      HOST: '0.0.0.0',
      PORT: '8080',
      DATABASE_URL: 'postgresql://db/countersign',
      DECISION_PATH: 'durable',
      CORS_ORIGINS: ' https://a.example , https://b.example,, ',
      GRAPHQL_INTROSPECTION: 'off',
      NODE_ENV: 'test',
    });
    expect(c).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      databaseUrl: 'postgresql://db/countersign',
      decisionPath: 'durable',
      corsOrigins: ['https://a.example', 'https://b.example'],
      introspection: false,
      logLevel: 'silent',
    });
  });

  it('reads secrets by name from the environment it was given, not from process.env', () => {
    const c = loadConfig({ CS_PROVIDER_KEY_OPENAI: 'sk-test' });
    expect(c.secret('CS_PROVIDER_KEY_OPENAI')).toBe('sk-test');
    expect(c.secret('PATH')).toBeUndefined();
  });

  it('reads only variables meant for provider keys: the prefix, or the explicit list', () => {
    const c = loadConfig({
      HOME: '/root',
      OPENAI_API_KEY: 'sk-listed',
      MY_KEY_A: 'sk-a',
      CS_PROVIDER_KEY_A: 'sk-default-prefix',
      PROVIDER_KEY_ENV_PREFIX: 'MY_KEY_',
      PROVIDER_KEY_ENV_NAMES: 'OPENAI_API_KEY',
      PROVIDER_BASE_URLS: 'https://llm.internal.test/v1, http://127.0.0.1:11434/v1',
    });
    expect(c.secret('HOME')).toBeUndefined();
    expect(c.secret('CS_PROVIDER_KEY_A')).toBeUndefined();
    expect(c.secret('MY_KEY_A')).toBe('sk-a');
    expect(c.secret('OPENAI_API_KEY')).toBe('sk-listed');
    expect(c.providerAccess).toEqual({
      keyEnvPrefix: 'MY_KEY_',
      keyEnvNames: ['OPENAI_API_KEY'],
      baseUrls: ['https://llm.internal.test/v1', 'http://127.0.0.1:11434/v1'],
    });
  });

  it.each([
    [{ PROVIDER_KEY_ENV_NAMES: 'OPENAI_API_KEY,STATE_ENCRYPTION_KEY' }, /STATE_ENCRYPTION_KEY is a secret/],
    [{ PROVIDER_KEY_ENV_PREFIX: 'STATE_' }, /would admit a secret/],
    [{ PROVIDER_KEY_ENV_PREFIX: '' }, /PROVIDER_KEY_ENV_PREFIX/],
    [{ PROVIDER_BASE_URLS: 'ftp://x.test' }, /PROVIDER_BASE_URLS/],
  ])('refuses provider access settings %j', (env, why) => {
    expect(configError(env).message).toMatch(why);
  });

  it.each([
    ['all zeros', Buffer.alloc(32, 0)],
    ['one repeated byte', Buffer.alloc(32, 7)],
    ['a repeated block', Buffer.from('abcdefgh'.repeat(4))],
    ['a counting sequence', Buffer.from(Array.from({ length: 32 }, (_, i) => 100 + i * 3))],
  ])('refuses a STATE_ENCRYPTION_KEY of %s, saying how to make one', (_what, key) => {
    const message = configError({ STATE_ENCRYPTION_KEY: key.toString('base64') }).message;
    expect(message).toMatch(/STATE_ENCRYPTION_KEY is not a usable key/);
    expect(message).toMatch(/openssl rand -base64 32/);
  });

  describe('sign-in through an identity provider', () => {
    const ISSUER = 'https://sso.example.org/realms/acme';

    it('is off without OIDC_ISSUER, and reads the settings with safe defaults', () => {
      expect(loadConfig({}).oidc).toBeNull();
      expect(loadConfig({ OIDC_ISSUER: ISSUER, OIDC_AUDIENCE: 'api, web' }).oidc).toEqual({
        issuer: ISSUER,
        audiences: ['api', 'web'],
        allowedAlgorithms: ['RS256', 'ES256', 'PS256'],
        groupsClaim: 'groups',
        autoCreateUsers: false,
        clockSkewSeconds: 30,
        webClientId: null,
        webScope: 'openid profile email',
      });
    });

    it.each([
      ['OIDC_ALLOWED_ALGS', 'HS256'],
      ['OIDC_ALLOWED_ALGS', 'RS256,none'],
      ['OIDC_ALLOWED_ALGS', 'none'],
      ['OIDC_CLOCK_SKEW_SECONDS', '3600'],
      ['OIDC_ISSUER', 'sso.example.org'],
    ])('refuses %s=%s', (name, value) => {
      const e = configError({ OIDC_ISSUER: ISSUER, OIDC_AUDIENCE: 'api', [name]: value });
      expect(e.problems.join()).toContain(name);
    });

    it('requires an audience with the issuer', () => {
      expect(configError({ OIDC_ISSUER: ISSUER }).problems.join()).toContain('OIDC_AUDIENCE');
    });
  });
});
