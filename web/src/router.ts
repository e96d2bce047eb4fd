import { useEffect, useState } from 'react';

/** Where the server serves the client. */
export const BASE = '/app';

export type Screen = 'inbox' | 'chat';

const NAVIGATED = 'countersign:navigated';

/** The screen a path shows: `/app/chat` the chat, anything else under /app the inbox. */
export function screenOf(pathname: string): Screen {
  return pathname.replace(/\/+$/, '') === `${BASE}/chat` ? 'chat' : 'inbox';
}

export function pathOf(screen: Screen): string {
  return screen === 'chat' ? `${BASE}/chat` : `${BASE}/`;
}

/** Goes to a URL of the client without reloading; `replace` keeps the history entry. */
export function navigate(url: string, replace = false): void {
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** The current location, re-rendered on back / forward and on {@link navigate}. */
export function useLocation(): { pathname: string; search: string } {
  const read = () => ({ pathname: window.location.pathname, search: window.location.search });
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const update = () => setLocation(read());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return location;
}
