import type { PendingTurn } from '../api/types';

/** What a waiting run proposes: each pending call with its preview lines (and arguments where visible). */
export function PendingCalls({ pending }: { pending: PendingTurn }) {
  return (
    <div className="pending">
      {pending.inputRequest?.question && <p className="question">{pending.inputRequest.question}</p>}
      <ul className="calls" aria-label="Proposed tool calls">
        {pending.calls.map((call) => (
          <li key={call.callId} className="call">
            <span className="tool">{call.toolName}</span>
            {call.writes && <span className="badge">writes</span>}
            {call.preview.length > 0 && (
              <ul className="preview" aria-label={`What ${call.toolName} would change`}>
                {call.preview.map((line, i) => (
                  <li key={i}>
                    <code>{line}</code>
                  </li>
                ))}
              </ul>
            )}
            {call.arguments !== null && call.arguments !== undefined && (
              <details>
                <summary>Arguments</summary>
                <pre>{JSON.stringify(call.arguments, null, 2)}</pre>
              </details>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
