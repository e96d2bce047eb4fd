import { BASE } from '../router';

/** What the chat's URL asks for. */
export type ChatRequest =
  | { readonly kind: 'open'; readonly conversationId: string }
  | {
      readonly kind: 'start';
      readonly pageId: string | null;
      readonly languageId: number | null;
      readonly skill: string | null;
    }
  | { readonly kind: 'new' };

const text = (params: URLSearchParams, name: string): string | null => {
  const value = params.get(name)?.trim();
  return value ? value : null;
};

/**
 * `?conversation=<id>` opens a conversation; `?pageId=&languageId=&skill=` (any of them)
 * starts one, and is replaced by `?conversation=<id>` once it exists, so a reload reopens it.
 */
export function chatRequestOf(search: string): ChatRequest {
  const params = new URLSearchParams(search);
  const conversationId = text(params, 'conversation');
  if (conversationId) return { kind: 'open', conversationId };
  const pageId = text(params, 'pageId');
  const language = text(params, 'languageId');
  const skill = text(params, 'skill');
  if (!pageId && language === null && !skill) return { kind: 'new' };
  const languageId = language !== null && /^\d+$/.test(language) ? Number(language) : null;
  return { kind: 'start', pageId, languageId, skill };
}

/** The URL of an existing conversation. */
export function conversationUrl(id: string): string {
  return `${BASE}/chat?conversation=${encodeURIComponent(id)}`;
}

/** The URL that starts a conversation (what the page picker submits). */
export function startUrl(pageId: string | null, languageId: number | null, skill: string | null): string {
  const params = new URLSearchParams();
  if (pageId) params.set('pageId', pageId);
  if (pageId && languageId !== null) params.set('languageId', String(languageId));
  if (skill) params.set('skill', skill);
  return `${BASE}/chat?${params.toString()}`;
}
