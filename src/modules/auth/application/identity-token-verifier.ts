import { Inject, Injectable, Logger } from '@nestjs/common';
import type { createRemoteJWKSet, JWTPayload } from 'jose';
import type { AppConfig, OidcSettings } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';

/** The key set is fetched again at most this often when a token names an unknown `kid`. */
const JWKS_COOLDOWN_MS = 2_000;
/** A key set is kept this long before it is fetched again anyway. */
const JWKS_MAX_AGE_MS = 10 * 60_000;
/** How long a failed discovery is not retried, so a provider outage does not multiply requests. */
const DISCOVERY_RETRY_MS = 5_000;
const FETCH_TIMEOUT_MS = 5_000;

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/** `jose`, loaded once OIDC_ISSUER is set and a JWT comes: a server without it never loads it (bench M1). */
function jose(): typeof import('jose') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('jose') as typeof import('jose');
}

/** A verified token: its claims, and when it stops being valid. */
export interface VerifiedIdentityToken {
  readonly claims: JWTPayload & { sub: string; iss: string; exp: number };
  readonly expiresAt: Date;
}

/**
 * Verifies bearer JWTs of the configured issuer with `jose`: the key set comes from the issuer's
 * discovery document (`/.well-known/openid-configuration`, fetched once and kept), is cached
 * and fetched again when a token names a key id it does not hold (a key rotation). Checks the
 * signature, `iss`, `aud`, `exp`/`nbf` within the clock skew, and the algorithm against the
 * allowed list (asymmetric only: the settings refuse `none` and HS*).
 */
@Injectable()
export class IdentityTokenVerifier {
  private readonly logger = new Logger(IdentityTokenVerifier.name);
  private readonly settings: OidcSettings | null;
  private keys: Promise<KeySet> | null = null;
  private discoveryFailedAt = 0;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.settings = config.oidc;
  }

  get enabled(): boolean {
    return this.settings !== null;
  }

  /** The verified token, or null when it is not valid now (the reason is logged at debug). */
  async verify(jwt: string): Promise<VerifiedIdentityToken | null> {
    const settings = this.settings;
    if (!settings) return null;
    const keys = await this.keySet(settings);
    if (!keys) return null;
    try {
      const { payload } = await jose().jwtVerify(jwt, keys, {
        issuer: settings.issuer,
        audience: [...settings.audiences],
        algorithms: [...settings.allowedAlgorithms],
        clockTolerance: settings.clockSkewSeconds,
        requiredClaims: ['sub', 'exp'],
      });
      if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 255)
        return null;
      const claims = payload as VerifiedIdentityToken['claims'];
      return { claims, expiresAt: new Date(claims.exp * 1000) };
    } catch (e) {
      if (e instanceof jose().errors.JOSEError) {
        this.logger.debug(`identity token refused: ${e.code}: ${e.message}`);
      } else {
        // why: fetching the key set failed (the provider is unreachable): a refusal, never a 500.
        this.logger.warn(`identity token not verified: ${(e as Error).message}`);
      }
      return null;
    }
  }

  private async keySet(settings: OidcSettings): Promise<KeySet | null> {
    if (!this.keys) {
      if (Date.now() - this.discoveryFailedAt < DISCOVERY_RETRY_MS) return null;
      this.keys = this.discover(settings);
    }
    try {
      return await this.keys;
    } catch (e) {
      // why: a provider that is down must not stop personal access tokens, nor stay cached as down.
      this.keys = null;
      this.discoveryFailedAt = Date.now();
      this.logger.warn(`OpenID discovery at ${settings.issuer} failed: ${(e as Error).message}`);
      return null;
    }
  }

  private async discover(settings: OidcSettings): Promise<KeySet> {
    const url = `${settings.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
    // why: OpenID Connect Discovery requires the document to name exactly the issuer asked for.
    if (document.issuer !== settings.issuer) {
      throw new Error(`the discovery document names issuer ${String(document.issuer)}`);
    }
    if (typeof document.jwks_uri !== 'string') throw new Error('the discovery document has no jwks_uri');
    return jose().createRemoteJWKSet(new URL(document.jwks_uri), {
      cooldownDuration: JWKS_COOLDOWN_MS,
      cacheMaxAge: JWKS_MAX_AGE_MS,
      timeoutDuration: FETCH_TIMEOUT_MS,
    });
  }
}
