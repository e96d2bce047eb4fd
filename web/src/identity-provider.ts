import { UserManager, WebStorageStateStore, type User } from 'oidc-client-ts';
import { BASE } from './router';

/** What the server says about signing in with the organisation's provider (`/app/sign-in.json`). */
export interface ProviderSignIn {
  readonly issuer: string;
  readonly clientId: string;
  readonly scope: string;
}

let manager: UserManager | null = null;

/** The provider sign-in the server offers, or null (personal access tokens only). */
export async function loadProviderSignIn(): Promise<ProviderSignIn | null> {
  try {
    const res = await fetch(`${BASE}/sign-in.json`, { headers: { accept: 'application/json' } });
    return res.ok ? ((await res.json()) as ProviderSignIn | null) : null;
  } catch {
    return null;
  }
}

/**
 * The one oidc-client-ts manager: authorisation code with PKCE, back to /app/, the tokens in
 * session storage (gone with the tab) and renewed before they expire (refresh token where the
 * provider grants one, else a hidden request).
 */
export function providerManager(settings: ProviderSignIn): UserManager {
  manager ??= new UserManager({
    authority: settings.issuer,
    client_id: settings.clientId,
    redirect_uri: `${window.location.origin}${BASE}/`,
    response_type: 'code',
    scope: settings.scope,
    userStore: new WebStorageStateStore({ store: window.sessionStorage }),
    stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
    automaticSilentRenew: true,
  });
  return manager;
}

/** Whether this page load is the provider sending the browser back with a code. */
export function isProviderCallback(): boolean {
  const params = new URLSearchParams(window.location.search);
  return params.has('code') && params.has('state');
}

/** Completes a sign-in the provider sent back; the access token is the bearer for the API. */
export async function completeProviderSignIn(settings: ProviderSignIn): Promise<User> {
  const user = await providerManager(settings).signinRedirectCallback();
  window.history.replaceState(null, '', `${BASE}/`);
  return user;
}

/** Calls `onToken` with each renewed access token; returns the unsubscribe. */
export function onRenewedToken(settings: ProviderSignIn, onToken: (token: string) => void): () => void {
  const m = providerManager(settings);
  const listener = (user: User) => onToken(user.access_token);
  m.events.addUserLoaded(listener);
  return () => m.events.removeUserLoaded(listener);
}

/** Forgets the provider's tokens in this tab (the provider's own session stays). */
export async function forgetProviderSignIn(): Promise<void> {
  await manager?.removeUser();
}
