/**
 * Masking of secrets and personal data in free text: bearer and API tokens (`cs_...`,
 * `sk-...` and a few well-known prefixes), credential URLs (`scheme://user:pass@`), key=value
 * secrets and e-mail addresses. Used by the REDACTED privacy level and by error sanitising.
 */

interface MaskRule {
  readonly pattern: RegExp;
  readonly replacement: string;
}

// why: order matters. Credential URLs go before e-mail addresses (`user:pass@host.tld`
// would otherwise be half-read as an address), bearer before bare tokens.
const RULES: readonly MaskRule[] = [
  { pattern: /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]*:[^\s/@]*@/gi, replacement: '$1[REDACTED]@' },
  { pattern: /\bBearer\s+[A-Za-z0-9._~+/=-]+/gi, replacement: 'Bearer [REDACTED]' },
  { pattern: /\bcs_[A-Za-z0-9_-]{8,}/g, replacement: '[REDACTED_TOKEN]' },
  { pattern: /\bsk-[A-Za-z0-9_-]{8,}/g, replacement: '[REDACTED_TOKEN]' },
  { pattern: /\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}/g, replacement: '[REDACTED_TOKEN]' },
  { pattern: /\bxox[abpors]-[A-Za-z0-9-]{10,}/g, replacement: '[REDACTED_TOKEN]' },
  { pattern: /\bAKIA[0-9A-Z]{16}\b/g, replacement: '[REDACTED_TOKEN]' },
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g, replacement: '[REDACTED_TOKEN]' },
  {
    pattern: /\b((?:api[_-]?key|access[_-]?token|secret|password|passwd)["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi,
    replacement: '$1[REDACTED]',
  },
  {
    pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
    replacement: '[REDACTED_EMAIL]',
  },
];

/** Masks tokens, credential URLs, key=value secrets and e-mail addresses in `text`. */
export function maskSecrets(text: string): string {
  let out = text;
  for (const rule of RULES) out = out.replace(rule.pattern, rule.replacement);
  return out;
}

const CAP_MARKER = '…[truncated]';

/** Caps `text` at `max` characters (marker included). */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, Math.max(0, max - CAP_MARKER.length)) + CAP_MARKER;
}
