/** The signed-in token lives in session storage: gone when the tab closes, never in a cookie. */
const TOKEN_KEY = 'countersign.app.token';

export function readToken(): string | null {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function writeToken(token: string | null): void {
  try {
    if (token) window.sessionStorage.setItem(TOKEN_KEY, token);
    else window.sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // why: storage may be switched off; the token then lives until the page reloads.
  }
}

/** A pasted token, with or without its "Bearer " prefix and whitespace. */
export function normaliseToken(raw: string): string {
  return raw.trim().replace(/^bearer\s+/i, '');
}
