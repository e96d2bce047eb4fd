import { useState, type FormEvent } from 'react';
import { Api, ApiError } from './api/graphql';
import { VIEWER } from './api/operations';
import { refusalMessage } from './api/refusals';
import type { Viewer } from './api/types';
import { normaliseToken } from './session';
import { providerManager, type ProviderSignIn } from './identity-provider';

/**
 * Sign-in with the organisation's identity provider when the server offers it, or by pasting a
 * personal access token (checked with `viewer` before it is kept).
 */
export function SignIn({
  notice,
  provider,
  onSignedIn,
}: {
  notice: string | null;
  provider: ProviderSignIn | null;
  onSignedIn: (token: string, viewer: Viewer) => void;
}) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(notice);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const token = normaliseToken(value);
    if (!token) {
      setError('Paste a personal access token (cs_…).');
      return;
    }
    setBusy(true);
    const api = new Api(token);
    try {
      const { viewer } = await api.request<{ viewer: Viewer }>(VIEWER);
      onSignedIn(token, viewer);
    } catch (e) {
      setError(refusalMessage(e instanceof ApiError ? e.code : 'NETWORK'));
      setBusy(false);
    } finally {
      api.dispose();
    }
  };

  return (
    <main id="main" className="sign-in">
      <h1>Countersign</h1>
      <p>Decide what AI agents want to change, and chat with them about your pages.</p>
      {provider && (
        <p>
          <button type="button" onClick={() => void providerManager(provider).signinRedirect()}>
            Sign in with your organisation
          </button>
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} aria-describedby={error ? 'sign-in-error' : undefined}>
        <label htmlFor="token">Personal access token</label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="cs_…"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          aria-invalid={error ? true : undefined}
          autoFocus
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p id="sign-in-error" role="alert" className="error">
            {error}
          </p>
        )}
      </form>
      <p className="hint">
        The token stays in this tab only (session storage). <code>npm start</code> prints the demo users&apos;
        tokens; <code>npm run cli -- token create --user &lt;name&gt;</code> makes one.
      </p>
    </main>
  );
}
