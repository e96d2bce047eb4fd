import { useEffect, useState } from 'react';
import type { Api } from '../api/graphql';
import { PAGE_CONTEXT } from '../api/operations';
import type { PageContextQuery } from '../api/generated';
import type { Conversation, ConversationStatus, PageContext } from '../api/types';

const STATUS_TEXT: Record<ConversationStatus, string> = {
  IDLE: 'Ready',
  PROCESSING: 'The assistant is working',
  AWAITING_APPROVAL: 'Waits for your approval',
  AWAITING_INPUT: 'Waits for your answer',
  FAILED: 'Failed',
};

/** The page and language the conversation is about, and its status. */
export function ConversationContext({
  api,
  viewContext,
  status,
}: {
  api: Api;
  viewContext: Conversation['viewContext'];
  status: ConversationStatus;
}) {
  const [page, setPage] = useState<PageContext | null>(null);
  const { pageId, languageId } = viewContext;
  useEffect(() => {
    if (!pageId) return;
    let live = true;
    api.request<PageContextQuery>(PAGE_CONTEXT, { id: pageId, languageId: languageId ?? 0 }).then(
      (data) => live && setPage(data.page),
      () => live && setPage(null),
    );
    return () => {
      live = false;
    };
  }, [api, pageId, languageId]);
  const language = page?.site?.languages.find((l) => l.languageId === (languageId ?? 0));
  return (
    <p className="meta conversation-context">
      {pageId ? (
        <>
          Page: <strong>{page ? page.title : pageId}</strong>
          {page && <span className="slug"> {page.slug}</span>}
          {language && <> · {language.title}</>}
        </>
      ) : (
        'A general conversation'
      )}{' '}
      · <span className="status">{STATUS_TEXT[status]}</span>
    </p>
  );
}
