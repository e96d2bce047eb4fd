import type { Member } from './cluster';
import type { History, Operation, ReceiptSeen, RequestEntry } from './history';

/** A request never waits longer than this for its answer (then it counts as unanswered). */
export const REQUEST_TIMEOUT_MS = 30_000;

const RECEIPT = 'path decision { id kind turn } run { id status }';

export const QUERIES: Record<Operation, string> = {
  startRun: 'mutation SoakStart($input: StartRunInput!) { startRun(input: $input) { id status } }',
  readRun: `query SoakRead($id: ID!) { run(id: $id) { id status stepCount
    pending { kind turn turnDigest } handBack { code } } }`,
  approveRun: `mutation SoakApprove($input: ApproveRunInput!) { approveRun(input: $input) { ${RECEIPT} } }`,
  denyRun: `mutation SoakDeny($input: DenyRunInput!) { denyRun(input: $input) { ${RECEIPT} } }`,
  submitRunInput: `mutation SoakSubmit($input: SubmitRunInputInput!) { submitRunInput(input: $input) { ${RECEIPT} } }`,
  cancelRun: 'mutation SoakCancel($id: ID!) { cancelRun(runId: $id) { id status } }',
  inbox: 'query SoakInbox { inbox { run { id status } mayApprove decidableHere } }',
};

/** What the actor says about a request (recorded with it). */
export interface Intent {
  readonly lane: number;
  readonly user: string;
  readonly runId: string | null;
  readonly intent: string;
  readonly group?: string | null;
  readonly stale?: boolean;
}

interface Answer {
  readonly status: number | null;
  readonly transport: string | null;
  readonly body: { data?: Record<string, any> | null; errors?: Array<{ extensions?: { code?: unknown } }> };
}

async function post(url: string, token: string, query: string, variables: object): Promise<Answer> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    try {
      return { status: res.status, transport: null, body: JSON.parse(text) as Answer['body'] };
    } catch {
      return { status: res.status, transport: null, body: { errors: [{ extensions: { code: 'NO_JSON' } }] } };
    }
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    return { status: null, transport: cause ?? (e instanceof Error ? e.name : 'unknown'), body: {} };
  }
}

function receiptOf(op: Operation, data: Record<string, any> | null | undefined): ReceiptSeen | null {
  const r = data?.[op] as
    | { path: string; decision: { id: string; kind: string; turn: number }; run: { status: string } }
    | undefined;
  if (!r?.decision) return null;
  return {
    decisionId: r.decision.id,
    kind: r.decision.kind,
    turn: r.decision.turn,
    path: r.path,
    runStatus: r.run.status,
  };
}

function pendingOf(data: Record<string, any> | null | undefined): RequestEntry['pending'] {
  const p = data?.run?.pending as { kind: string; turn: number; turnDigest: string } | null | undefined;
  return p ? { kind: p.kind, turn: p.turn, digest: p.turnDigest } : null;
}

/**
 * Sends one GraphQL operation over HTTP to an API instance as a user, and records the request
 * and its answer in the history (transport failures included). Never throws.
 */
export async function send(
  history: History,
  target: Member,
  token: string,
  op: Operation,
  variables: Record<string, unknown>,
  who: Intent,
): Promise<RequestEntry> {
  const t = history.now();
  const answer = await post(target.httpUrl!, token, QUERIES[op], variables);
  const data = answer.body.data;
  const root = data?.[op === 'readRun' ? 'run' : op] as { status?: string } | null | undefined;
  return history.append(
    {
      type: 'request',
      ms: history.now() - t,
      lane: who.lane,
      op,
      target: target.name,
      pid: target.pid,
      user: who.user,
      runId: who.runId ?? (op === 'startRun' ? ((root as { id?: string } | null)?.id ?? null) : null),
      variables,
      intent: who.intent,
      group: who.group ?? null,
      stale: who.stale ?? false,
      status: answer.status,
      transport: answer.transport,
      codes: (answer.body.errors ?? []).map((e) =>
        typeof e.extensions?.code === 'string' ? e.extensions.code : 'NO_CODE',
      ),
      receipt: receiptOf(op, data),
      runStatus: typeof root?.status === 'string' ? root.status : (receiptOf(op, data)?.runStatus ?? null),
      pending: op === 'readRun' ? pendingOf(data) : null,
    },
    t,
  ) as RequestEntry;
}
