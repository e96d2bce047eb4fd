import { useCallback, useEffect, useRef, useState, type MouseEvent } from 'react';
import { ApiError, type Api } from '../api/graphql';
import { CONVERSATIONS, CREATE_CONVERSATION } from '../api/operations';
import { refusalMessage } from '../api/refusals';
import type { Conversation, ConversationSummary, Viewer } from '../api/types';
import { BASE, navigate } from '../router';
import { chatRequestOf, conversationUrl, type ChatRequest } from './chat-url';
import { ConversationView } from './conversation-view';
import { NewConversation } from './new-conversation';

/** The chat: the viewer's conversations, and the one the URL names, starts or asks for. */
export function ChatPage({ api, viewer, search }: { api: Api; viewer: Viewer; search: string }) {
  const request = chatRequestOf(search);
  const [list, setList] = useState<ConversationSummary[] | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const openId = request.kind === 'open' ? request.conversationId : null;

  const loadList = useCallback(async () => {
    try {
      const data = await api.request<{ conversations: ConversationSummary[] }>(CONVERSATIONS);
      setList(data.conversations);
      setListError(null);
    } catch (e) {
      setListError(refusalMessage(e instanceof ApiError ? e.code : 'NETWORK'));
    }
  }, [api]);
  useEffect(() => void loadList(), [loadList, openId]);

  if (!viewer.grants.includes('CHAT') && !viewer.user.isAdmin) {
    return (
      <>
        <h1>Chat</h1>
        <p className="notice">{refusalMessage('CHAT_NOT_ALLOWED')}</p>
      </>
    );
  }
  return (
    <div className="chat">
      <nav className="conversations" aria-label="Conversations">
        <h2>Conversations</h2>
        <a
          href={`${BASE}/chat`}
          onClick={follow(`${BASE}/chat`)}
          aria-current={request.kind === 'new' ? 'page' : undefined}
        >
          New conversation
        </a>
        {listError && <p className="error">{listError}</p>}
        <ul>
          {(list ?? []).map((c) => (
            <li key={c.id}>
              <a
                href={conversationUrl(c.id)}
                onClick={follow(conversationUrl(c.id))}
                aria-current={c.id === openId ? 'page' : undefined}
              >
                {c.title || `Conversation ${c.id}`}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <section className="chat-main">
        <ChatMain api={api} viewer={viewer} request={request} onChanged={() => void loadList()} />
      </section>
    </div>
  );
}

function ChatMain({
  api,
  viewer,
  request,
  onChanged,
}: {
  api: Api;
  viewer: Viewer;
  request: ChatRequest;
  onChanged: () => void;
}) {
  switch (request.kind) {
    case 'open':
      return (
        <ConversationView
          key={request.conversationId}
          api={api}
          viewer={viewer}
          id={request.conversationId}
          onChanged={onChanged}
        />
      );
    case 'start':
      return <StartFromUrl api={api} request={request} />;
    case 'new':
      return <NewConversation api={api} />;
  }
}

/** Creates the conversation a start URL asks for, once, then replaces the URL with its id. */
function StartFromUrl({ api, request }: { api: Api; request: Extract<ChatRequest, { kind: 'start' }> }) {
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    // why: effects may run twice (remounts); one URL starts one conversation.
    if (started.current) return;
    started.current = true;
    const input = { pageId: request.pageId, languageId: request.languageId, skill: request.skill };
    api.request<{ createConversation: Conversation }>(CREATE_CONVERSATION, { input }).then(
      (data) => navigate(conversationUrl(data.createConversation.id), true),
      (e: unknown) => setError(refusalMessage(e instanceof ApiError ? e.code : 'NETWORK')),
    );
  }, [api, request]);
  if (!error) return <p className="loading">Starting the conversation…</p>;
  return (
    <>
      <h1>New conversation</h1>
      <p role="alert" className="error">
        {error}
      </p>
      <a href={`${BASE}/chat`} onClick={follow(`${BASE}/chat`)}>
        Pick a page instead
      </a>
    </>
  );
}

/** A link handler that navigates inside the client (plain clicks only). */
export function follow(url: string) {
  return (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(url);
  };
}
