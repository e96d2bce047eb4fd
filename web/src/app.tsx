import { useCallback, useEffect, useMemo, useState, type MouseEvent } from 'react';
import { Api, ApiError } from './api/graphql';
import { VIEWER } from './api/operations';
import { refusalMessage } from './api/refusals';
import type { Viewer } from './api/types';
import { ChatPage } from './chat/chat-page';
import { InboxPage } from './inbox/inbox-page';
import { navigate, pathOf, screenOf, useLocation, type Screen } from './router';
import { readToken, writeToken } from './session';
import { SignIn } from './sign-in';
import {
  completeProviderSignIn,
  forgetProviderSignIn,
  isProviderCallback,
  loadProviderSignIn,
  onRenewedToken,
  type ProviderSignIn,
} from './identity-provider';

/** The whole client: sign-in until a token works, then the inbox or the chat. */
export function App() {
  const [token, setToken] = useState<string | null>(readToken);
  const [viewer, setViewer] = useState<Viewer | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [provider, setProvider] = useState<ProviderSignIn | null>(null);
  const api = useMemo(() => (token ? new Api(token) : null), [token]);

  // why: the provider's sign-in (and its return with a code) is offered once the server said how.
  useEffect(() => {
    let live = true;
    void loadProviderSignIn().then(async (settings) => {
      if (!live || !settings) return;
      setProvider(settings);
      if (!isProviderCallback()) return;
      try {
        const user = await completeProviderSignIn(settings);
        writeToken(user.access_token);
        setToken(user.access_token);
      } catch {
        setNotice('The sign-in with your organisation did not complete. Try again.');
      }
    });
    return () => {
      live = false;
    };
  }, []);

  // why: a renewed access token replaces the old one (HTTP and a new graphql-ws connection).
  useEffect(() => {
    if (!provider) return;
    return onRenewedToken(provider, (renewed) => {
      writeToken(renewed);
      setToken(renewed);
    });
  }, [provider]);

  const signOut = useCallback((message: string | null = null) => {
    void forgetProviderSignIn();
    writeToken(null);
    setToken(null);
    setViewer(null);
    setNotice(message);
  }, []);

  useEffect(() => {
    if (!api) return;
    let live = true;
    api.request<{ viewer: Viewer }>(VIEWER).then(
      (data) => live && setViewer(data.viewer),
      (e: unknown) => live && signOut(refusalMessage(e instanceof ApiError ? e.code : 'NETWORK')),
    );
    return () => {
      live = false;
      api.dispose();
    };
  }, [api, signOut]);

  if (!api) {
    return (
      <SignIn
        notice={notice}
        provider={provider}
        onSignedIn={(t, v) => {
          writeToken(t);
          setNotice(null);
          setToken(t);
          setViewer(v);
        }}
      />
    );
  }
  if (!viewer) return <p className="loading">Signing in…</p>;
  return <SignedIn api={api} viewer={viewer} onSignOut={() => signOut()} />;
}

function SignedIn({ api, viewer, onSignOut }: { api: Api; viewer: Viewer; onSignOut: () => void }) {
  const location = useLocation();
  const screen = screenOf(location.pathname);
  const [live, setLive] = useState(true);
  useEffect(() => api.onLiveChange(setLive), [api]);
  useEffect(() => {
    document.title = `${screen === 'chat' ? 'Chat' : 'Inbox'} · Countersign`;
  }, [screen]);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <span className="brand">Countersign</span>
        <nav aria-label="Main">
          <NavLink screen="inbox" current={screen} label="Inbox" />
          <NavLink screen="chat" current={screen} label="Chat" />
        </nav>
        <span className="who">
          Signed in as <strong>{viewer.user.displayName}</strong> ({viewer.user.username})
        </span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      {!live && (
        <p role="alert" className="live-lost-banner" data-live="lost">
          {refusalMessage('LIVE_CONNECTION_LOST')}
        </p>
      )}
      <main id="main" tabIndex={-1}>
        {screen === 'chat' ? (
          <ChatPage api={api} viewer={viewer} search={location.search} />
        ) : (
          <InboxPage api={api} viewer={viewer} />
        )}
      </main>
    </>
  );
}

function NavLink({ screen, current, label }: { screen: Screen; current: Screen; label: string }) {
  const href = pathOf(screen);
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(href);
    document.getElementById('main')?.focus();
  };
  return (
    <a href={href} aria-current={screen === current ? 'page' : undefined} onClick={follow}>
      {label}
    </a>
  );
}
