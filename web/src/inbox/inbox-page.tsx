import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, type Api } from '../api/graphql';
import { INBOX, INBOX_CHANGED } from '../api/operations';
import { refusalMessage } from '../api/refusals';
import type { InboxItem, Viewer } from '../api/types';
import { ProgressBar } from '../components/progress-bar';
import { InboxCard } from './inbox-card';
import { describeOutcome, whatOf, type Outcome } from './outcome';

const keyOf = (item: InboxItem): string => `${item.run.id}:${item.run.pending?.turn ?? 0}`;

/**
 * The runs waiting for a decision the viewer may make. `inboxChanged` reloads the list, so runs
 * entering or leaving it appear and disappear live; a card whose decision is running stays
 * (held) until its run SETTLED, then the list reloads and the outcome is shown above it.
 */
export function InboxPage({ api, viewer }: { api: Api; viewer: Viewer }) {
  const [items, setItems] = useState<InboxItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [held, setHeld] = useState<Record<string, InboxItem>>({});
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const generation = useRef(0);
  const listedRef = useRef<ReadonlySet<string>>(new Set());

  const load = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const data = await api.request<{ inbox: InboxItem[] }>(INBOX);
      if (mine !== generation.current) return;
      listedRef.current = new Set(data.inbox.map(keyOf));
      setItems(data.inbox);
      setError(null);
    } catch (e) {
      if (mine === generation.current) setError(refusalMessage(e instanceof ApiError ? e.code : 'NETWORK'));
    }
  }, [api]);

  useEffect(() => {
    void load();
    return api.subscribe(INBOX_CHANGED, {}, () => void load());
  }, [api, load]);

  const hold = useCallback((item: InboxItem) => setHeld((h) => ({ ...h, [keyOf(item)]: item })), []);
  const unhold = useCallback((item: InboxItem) => {
    setHeld((h) => {
      const rest = { ...h };
      delete rest[keyOf(item)];
      return rest;
    });
  }, []);
  // why: the card of a refused decision stays where its run is still listed (showing the
  // message); a run that left the list meanwhile gets the message among the outcomes.
  const refused = useCallback(
    (item: InboxItem, code: string) => {
      unhold(item);
      if (listedRef.current.has(keyOf(item))) return;
      const { run } = item;
      setOutcomes((o) =>
        [
          {
            key: `${run.id}:refused:${Date.now()}`,
            runId: run.id,
            what: whatOf(item),
            action: 'approve' as const,
            status: run.status,
            stepCount: run.stepCount,
            handBackCode: null,
            refusedCode: code,
            newTurn: false,
            tone: 'failed' as const,
          },
          ...o,
        ].slice(0, 5),
      );
    },
    [unhold],
  );
  const settled = useCallback(
    (item: InboxItem, outcome: Outcome) => {
      unhold(item);
      setOutcomes((o) => [outcome, ...o].slice(0, 5));
      void load();
    },
    [load, unhold],
  );

  const listed = new Set((items ?? []).map(keyOf));
  const shown = [...Object.values(held).filter((i) => !listed.has(keyOf(i))), ...(items ?? [])];
  return (
    <>
      <div className="page-head">
        <h1>Inbox</h1>
        <button type="button" onClick={() => void load()}>
          Reload
        </button>
      </div>
      <p className="lead">
        Runs that wait for a decision you may make{viewer.mayDecideApprovals ? '' : ' (your own runs)'}. They
        appear and disappear here as they start and stop waiting.
      </p>
      <section aria-labelledby="outcomes-heading" className="outcomes" hidden={outcomes.length === 0}>
        <h2 id="outcomes-heading">Decided just now</h2>
        <ul aria-live="polite">
          {outcomes.map((o) => (
            <li key={o.key} className={`outcome outcome-${o.tone}`} data-run-id={o.runId}>
              <p className="outcome-text">{describeOutcome(o)}</p>
              {!o.refusedCode && (
                <ProgressBar
                  progress={{ stepCount: o.stepCount, status: o.status, settled: true }}
                  label={`Progress of run ${o.runId.slice(0, 8)}`}
                />
              )}
            </li>
          ))}
        </ul>
      </section>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {items === null && !error && <p className="loading">Loading the inbox…</p>}
      {items !== null && shown.length === 0 && <p className="empty">Nothing waits for you.</p>}
      <ul className="inbox" aria-label="Waiting runs" aria-busy={items === null}>
        {shown.map((item) => (
          <li key={keyOf(item)}>
            <InboxCard api={api} item={item} onDecide={hold} onRefused={refused} onSettled={settled} />
          </li>
        ))}
      </ul>
    </>
  );
}
