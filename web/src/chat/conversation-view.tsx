import { useCallback, useEffect, useState } from 'react';
import { ApiError, type Api } from '../api/graphql';
import {
  CONVERSATION_EVENTS,
  CONVERSATION_QUERY,
  SEND_MESSAGE,
  SET_CONVERSATION_SKILL,
  SKILL_CATALOGUE,
  STOP_TURN,
} from '../api/operations';
import { refusalMessage } from '../api/refusals';
import type {
  Conversation,
  ConversationEvent,
  Message,
  PendingTurn,
  SkillCatalogueEntry,
  Viewer,
} from '../api/types';
import { ProgressBar } from '../components/progress-bar';
import { ConversationContext } from './conversation-context';
import { DecisionCard } from './decision-card';
import { MessageComposer } from './message-composer';

const ROLE_LABEL: Record<Message['role'], string> = { USER: 'You', ASSISTANT: 'Assistant', NOTICE: 'Notice' };

const errorText = (e: unknown): string => refusalMessage(e instanceof ApiError ? e.code : 'NETWORK');

/**
 * One conversation: its messages (notices come rendered in the reader's language), the live
 * status and step count of the turn that runs, the decision card while it waits, and the
 * composer with the skill picker.
 */
export function ConversationView({
  api,
  id,
  onChanged,
}: {
  api: Api;
  viewer: Viewer;
  id: string;
  onChanged: () => void;
}) {
  const [conversation, setConversation] = useState<Conversation | null | undefined>(undefined);
  const [catalogue, setCatalogue] = useState<SkillCatalogueEntry[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [turnSteps, setTurnSteps] = useState<number | null>(null);
  // why: the conversation stops showing `pending` once the decision is taken; its card stays
  // (with the progress) until the run SETTLED.
  const [decisionError, setDecisionError] = useState<string | null>(null);
  const [held, setHeld] = useState<{ runId: string; pending: PendingTurn } | null>(null);
  /** The answer as the model writes it (TEXT_DELTA); gone once the stored message arrives. */
  const [streaming, setStreaming] = useState<Streaming | null>(null);

  const load = useCallback(async () => {
    try {
      const data = await api.request<{ conversation: Conversation | null }>(CONVERSATION_QUERY, { id });
      setConversation((c) => newer(c, data.conversation));
    } catch (e) {
      setError(errorText(e));
    }
  }, [api, id]);

  useEffect(() => {
    void load();
    api.request<{ skillCatalogue: SkillCatalogueEntry[] }>(SKILL_CATALOGUE).then(
      (data) => setCatalogue(data.skillCatalogue),
      () => setCatalogue([]),
    );
    return api.subscribe<{ conversationEvents: ConversationEvent }>(
      CONVERSATION_EVENTS,
      { conversationId: id },
      ({ conversationEvents: event }) => {
        if (event.kind === 'PROGRESS') setTurnSteps(event.stepCount);
        else if (event.kind === 'TEXT_DELTA' && event.delta) setStreaming((s) => appended(s, event.delta!));
        else if (event.kind === 'MESSAGE' && event.message) {
          addMessage(setConversation, event);
          // why: the stored answer replaces the streamed text; a notice after it says why it stopped.
          if (event.message.role === 'ASSISTANT') setStreaming(null);
          else setStreaming((s) => (s && s.final ? { ...s, incomplete: true } : s));
        } else void load();
        if (event.status !== 'PROCESSING') setTurnSteps(null);
      },
    );
  }, [api, id, load]);

  useEffect(() => {
    if (conversation) document.title = `${conversation.title || 'Conversation'} · Countersign`;
  }, [conversation]);

  const mutate = async (query: string, input: Record<string, unknown>): Promise<boolean> => {
    try {
      const data = await api.request<Record<string, Conversation>>(query, { input });
      const next = Object.values(data)[0];
      if (next) setConversation((c) => newer(c, next));
      setError(null);
      onChanged();
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  };

  const stop = async (runId: string): Promise<void> => {
    try {
      await api.request(STOP_TURN, { runId });
    } catch (e) {
      setError(errorText(e));
    }
  };

  if (conversation === undefined)
    return error ? <Failure error={error} /> : <p className="loading">Loading…</p>;
  if (conversation === null) return <Failure error={refusalMessage('NOT_FOUND')} />;
  const card =
    held ??
    (conversation.pending && conversation.approvalRunId
      ? { runId: conversation.approvalRunId, pending: conversation.pending }
      : null);
  const skillEntry = catalogue.find((s) => s.identifier === conversation.skill?.identifier);
  const skill = conversation.skill && {
    identifier: conversation.skill.identifier,
    name: skillEntry?.name ?? conversation.skill.identifier,
    isProcess: conversation.skill.isProcess,
  };

  return (
    <div className="conversation" data-conversation-id={conversation.id} data-status={conversation.status}>
      <h1>{conversation.title || 'Conversation'}</h1>
      <ConversationContext api={api} viewContext={conversation.viewContext} status={conversation.status} />
      <ol className="messages" role="log" aria-live="polite" aria-label="Messages">
        {conversation.messages.map((m) => (
          <li key={m.id} className={`message message-${m.role.toLowerCase()}`}>
            <span className="message-role">{ROLE_LABEL[m.role]}</span>
            <p className="message-text">{m.text}</p>
          </li>
        ))}
      </ol>
      {streaming && (
        // why: outside the polite log, so a screen reader is not told every delta; the finished
        // answer is announced when its message joins the log.
        <div
          className={`message message-assistant message-streaming${streaming.incomplete ? ' message-incomplete' : ''}`}
          aria-live="off"
          data-run-id={streaming.runId}
        >
          <span className="message-role">{ROLE_LABEL.ASSISTANT}</span>
          <p className="message-text">{streaming.text}</p>
          {streaming.incomplete && <p className="message-note">The answer stopped before it was finished.</p>}
          {!streaming.final && (
            <button type="button" onClick={() => void stop(streaming.runId)}>
              Stop
            </button>
          )}
        </div>
      )}
      {conversation.status === 'PROCESSING' && !card && (
        <ProgressBar
          progress={{ stepCount: turnSteps ?? 0, status: 'RUNNING', settled: false }}
          label="The assistant is working"
        />
      )}
      {card && (
        <DecisionCard
          key={`${card.runId}:${card.pending.turn}`}
          api={api}
          conversationId={conversation.id}
          runId={card.runId}
          pending={card.pending}
          onDecide={() => {
            setDecisionError(null);
            setHeld(card);
          }}
          onRefused={(e) => {
            setHeld(null);
            setDecisionError(errorText(e));
            void load();
          }}
          onSettled={() => {
            setHeld(null);
            void load();
          }}
        />
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {decisionError && !card && (
        <p role="alert" className="error">
          {decisionError}
        </p>
      )}
      <MessageComposer
        catalogue={catalogue}
        skill={skill}
        sendDisabled={conversation.status === 'PROCESSING'}
        onSend={(text) => mutate(SEND_MESSAGE, { conversationId: conversation.id, text })}
        onPickSkill={(identifier) =>
          void mutate(SET_CONVERSATION_SKILL, { conversationId: conversation.id, skill: identifier })
        }
        onRemoveSkill={() =>
          void mutate(SET_CONVERSATION_SKILL, { conversationId: conversation.id, skill: null })
        }
      />
    </div>
  );
}

/** The later of two reads of a conversation: an answer that arrives late does not undo a newer event. */
function newer(current: Conversation | null | undefined, next: Conversation | null): Conversation | null {
  if (!current || !next) return next;
  return next.updatedAt >= current.updatedAt ? next : current;
}

function addMessage(
  set: (update: (c: Conversation | null | undefined) => Conversation | null | undefined) => void,
  event: ConversationEvent,
): void {
  const message = event.message;
  if (!message) return;
  set((c) =>
    c && !c.messages.some((m) => m.id === message.id)
      ? { ...c, status: event.status, messages: [...c.messages, message] }
      : c,
  );
}

interface Streaming {
  runId: string;
  text: string;
  final: boolean;
  incomplete: boolean;
}

/** The streamed text with a delta applied at its offset (a delta at 0 starts it afresh). */
function appended(
  current: Streaming | null,
  delta: { messageId: string; offset: number; text: string; final: boolean },
): Streaming | null {
  const base = current && current.runId === delta.messageId && delta.offset > 0 ? current.text : '';
  if (delta.offset !== base.length) return current;
  return { runId: delta.messageId, text: base + delta.text, final: delta.final, incomplete: false };
}

function Failure({ error }: { error: string }) {
  return (
    <>
      <h1>Conversation</h1>
      <p role="alert" className="error">
        {error}
      </p>
    </>
  );
}
