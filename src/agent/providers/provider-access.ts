/**
 * Which environment variables a provider configuration may name as its API key, and which
 * endpoints it may send that key to. A configuration is admin-written data: without these limits
 * `apiKeyEnv: "HOME"` (or any variable of the server's environment) would be sent as a bearer
 * token to whatever `baseUrl` the admin chose.
 */
export interface ProviderAccess {
  /** Variable names starting with this prefix are keys meant for providers. */
  readonly keyEnvPrefix: string;
  /** Further variable names allowed as keys (an operator's explicit choice, e.g. OPENAI_API_KEY). */
  readonly keyEnvNames: readonly string[];
  /** Base URLs a provider may be reached at (origin plus path prefix); empty: any http(s) URL. */
  readonly baseUrls: readonly string[];
}

/** The prefix of provider key variables when no setting says otherwise. */
export const DEFAULT_PROVIDER_KEY_PREFIX = 'CS_PROVIDER_KEY_';

/**
 * The server's own secrets: never a provider key, whatever the settings say (the settings that
 * would admit one are refused at start-up, and a configuration naming one is refused when saved
 * and again at every call).
 */
export const SERVER_SECRET_ENV_NAMES: readonly string[] = [
  'STATE_ENCRYPTION_KEY',
  'DATABASE_URL',
  'REDIS_URL',
  'METRICS_TOKEN',
];

/** Null when `name` may be read as a provider key, else why not. */
export function keyEnvProblem(name: string, access: ProviderAccess): string | null {
  if (SERVER_SECRET_ENV_NAMES.includes(name)) return 'names a secret of the server itself';
  const prefix = access.keyEnvPrefix;
  if (name.length > prefix.length && name.startsWith(prefix)) return null;
  if (access.keyEnvNames.includes(name)) return null;
  const listed = access.keyEnvNames.length > 0 ? ` or be one of ${access.keyEnvNames.join(', ')}` : '';
  return `must name a variable meant for provider keys: start with ${prefix}${listed}`;
}

/** Null when a provider may be reached at `baseUrl`, else why not. */
export function baseUrlProblem(baseUrl: string, access: ProviderAccess): string | null {
  if (access.baseUrls.length === 0) return null;
  const url = parse(baseUrl);
  if (url && access.baseUrls.some((allowed) => within(url, allowed))) return null;
  return `is not an allowed provider URL (allowed: ${access.baseUrls.join(', ')})`;
}

/**
 * Whether `url` lies under `allowed`: the same scheme, host and port, and a path equal to the
 * allowed path or below it at a `/` boundary (`/v1` admits `/v1` and `/v1/x`, not `/v10`).
 * Credentials in the URL are never within an allowed entry.
 */
function within(url: URL, allowed: string): boolean {
  const base = parse(allowed);
  if (!base || url.origin !== base.origin || url.username !== '' || url.password !== '') return false;
  const prefix = base.pathname.replace(/\/+$/, '');
  const path = url.pathname.replace(/\/+$/, '');
  return path === prefix || path.startsWith(`${prefix}/`);
}

function parse(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}
