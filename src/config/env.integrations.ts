import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsNumber, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { toBool, toInt, toNumber } from './env.transforms';

/** The variables of what the server talks to: the identity provider, model providers, retention, webhooks. */
export class IntegrationsEnv {
  /** Issuer of the organisation's identity provider (OpenID Connect); unset: personal access tokens only. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s?#]+$/, { message: 'OIDC_ISSUER must be an http(s) URL without query' })
  OIDC_ISSUER?: string;

  /** Audiences a token must name (one of), comma-separated; required with OIDC_ISSUER. */
  @IsOptional()
  @IsString()
  OIDC_AUDIENCE?: string;

  /** Signature algorithms accepted, comma-separated (default RS256,ES256,PS256). */
  @IsOptional()
  @Matches(
    /^\s*(RS|PS|ES)(256|384|512)\s*(,\s*((RS|PS|ES)(256|384|512)|EdDSA)\s*)*$|^\s*EdDSA(\s*,\s*((RS|PS|ES)(256|384|512)|EdDSA)\s*)*$/,
    {
      message:
        'OIDC_ALLOWED_ALGS must list asymmetric algorithms (RS*, PS*, ES*, EdDSA); none and HS* are refused',
    },
  )
  OIDC_ALLOWED_ALGS?: string;

  /** The claim holding the user's groups or roles (default groups). */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_:./-]{1,200}$/, { message: 'OIDC_GROUPS_CLAIM must be a claim name' })
  OIDC_GROUPS_CLAIM?: string;

  /** Create a user on their first sign-in (default false: an admin creates them, linked by subject). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  OIDC_AUTO_CREATE_USERS?: boolean;

  /** Clock skew tolerated on exp/nbf/iat, in seconds (default 30). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(300)
  OIDC_CLOCK_SKEW_SECONDS?: number;

  /** The reference web client's public client id at the provider (authorisation code + PKCE). */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{1,200}$/, { message: 'OIDC_WEB_CLIENT_ID must be printable ASCII without spaces' })
  OIDC_WEB_CLIENT_ID?: string;

  /** Scopes the web client asks for (default "openid profile email"). */
  @IsOptional()
  @Matches(/^[\x21-\x7e]+( [\x21-\x7e]+)*$/, { message: 'OIDC_WEB_SCOPE must be scopes separated by spaces' })
  OIDC_WEB_SCOPE?: string;
  /** Provider key variables must start with this (default CS_PROVIDER_KEY_). */
  @IsOptional()
  @Matches(/^[A-Z][A-Z0-9_]{2,63}$/, {
    message: 'PROVIDER_KEY_ENV_PREFIX must be 3-64 upper-case letters, digits or "_", starting with a letter',
  })
  PROVIDER_KEY_ENV_PREFIX?: string;

  /** Further variable names allowed as provider keys, comma-separated. */
  @IsOptional()
  @Matches(/^\s*([A-Za-z_][A-Za-z0-9_]{0,127}\s*(,\s*[A-Za-z_][A-Za-z0-9_]{0,127}\s*)*)?$/, {
    message: 'PROVIDER_KEY_ENV_NAMES must be environment variable names separated by commas',
  })
  PROVIDER_KEY_ENV_NAMES?: string;

  /** Base URLs providers may be reached at, comma-separated; unset: any http(s) URL. */
  @IsOptional()
  @IsString()
  PROVIDER_BASE_URLS?: string;

  /** Retention: finished runs keep their steps this many days (unset: forever). */
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.0001)
  @Max(36_500)
  RETENTION_STEPS_DAYS?: number;

  /** Retention: finished runs are deleted this many days after they finished (unset: never). */
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.0001)
  @Max(36_500)
  RETENTION_RUNS_DAYS?: number;

  /** How often the retention sweep looks for work (seconds, default 600). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  RETENTION_INTERVAL_SECONDS?: number;

  /** Runs per retention statement (default 100): the bound on each batch's locks. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  RETENTION_BATCH_RUNS?: number;

  /** Webhooks may be sent to loopback, private and link-local addresses (default false). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  WEBHOOKS_ALLOW_PRIVATE_NETWORKS?: boolean;

  /** How long one webhook request may take, in milliseconds (default 10000). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOKS_TIMEOUT_MS?: number;

  /** The first retry of a failed webhook waits up to this long, in milliseconds (default 5000). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3_600_000)
  WEBHOOKS_RETRY_BASE_MS?: number;

  /** No retry of a webhook waits longer than this, in milliseconds (default 3600000). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400_000)
  WEBHOOKS_RETRY_MAX_DELAY_MS?: number;

  /** A webhook is retried for this long after its event, in seconds, then marked failed (default 86400). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(2_592_000)
  WEBHOOKS_RETRY_WINDOW_SECONDS?: number;

  /** How often workers look for due webhooks, in milliseconds (default 1000). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(600_000)
  WEBHOOKS_POLL_MS?: number;

  /** Where people open the reference client (its origin, e.g. https://countersign.example.com): links in webhooks. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s?#]+$/, { message: 'PUBLIC_CLIENT_URL must be an http(s) URL without query' })
  PUBLIC_CLIENT_URL?: string;
}
