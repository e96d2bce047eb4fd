// The authorisation suite's rules (test/e2e/authorization-*.e2e-spec.ts): who may reach what,
// derived from the design (docs/security.md, docs/decisions.md, docs/chat-and-skills.md), never
// from what the server answers; the operations the suite tries; and how a refusal must look.
import type { GqlResponse } from './test-app';

export const USERS = ['admin', 'alice', 'bob', 'carol', 'dave', 'erin'] as const;
export type User = (typeof USERS)[number];
export const NON_ADMINS = USERS.filter((u) => u !== 'admin');

/** The demo groups' grants (demo-data.md): approvers carry AGENT_APPROVE; all others CHAT. */
export const GRANT_HOLDERS: ReadonlySet<User> = new Set(['bob', 'carol']);
export const CHAT_USERS: ReadonlySet<User> = new Set(['alice', 'carol', 'dave', 'erin']);

/** docs/decisions.md "Who may decide": detail = owner or admin; decide = detail or the grant. */
export type RunAccess = 'detail' | 'decide' | 'none';
export function runAccessOf(user: User, owner: User | null): RunAccess {
  if (owner === null) return 'none';
  if (user === 'admin' || user === owner) return 'detail';
  return GRANT_HOLDERS.has(user) ? 'decide' : 'none';
}

/**
 * docs/chat-and-skills.md and the chat module: a conversation is its owner's; admins may
 * read any by id (so they may know it exists: a refused action is FORBIDDEN for them); the
 * chat needs the CHAT grant (admins are admitted).
 */
export type ConversationAccess = 'owner' | 'read' | 'none' | 'no-chat';
export function conversationAccessOf(user: User, owner: User | null): ConversationAccess {
  if (user !== 'admin' && !CHAT_USERS.has(user)) return 'no-chat';
  if (owner !== null && user === owner) return 'owner';
  if (owner !== null && user === 'admin') return 'read';
  return 'none';
}

export interface RunTarget {
  readonly name: string;
  readonly id: string;
  /** Null for an id that does not exist. */
  readonly owner: User | null;
  readonly status: string;
  /** The digest of its (last) pause, passed with decisions so only authorisation refuses. */
  readonly digest: string;
}

export interface ConversationTarget {
  readonly name: string;
  readonly id: string;
  readonly owner: User | null;
  readonly digest: string;
}

export type Json = Record<string, unknown>;

export const RUN_VIEW = `query($id: ID!) { run(id: $id) {
  id status stepCount owner { username } pending { turnDigest calls { toolName arguments preview } } } }`;
export const RUN_STEPS = `query($id: ID!) { run(id: $id) { id steps { nodes { sequence kind payload } } } }`;
export const CANCEL = `mutation($id: ID!) { cancelRun(runId: $id) { id status } }`;
export const RUN_EVENTS = `subscription($runId: ID!) { runEvents(runId: $runId) { kind runId step { sequence kind payload } finalContent } }`;

export const CONVERSATION = `query($id: ID!) { conversation(id: $id) {
  id title status owner { username } messages { role text runId } pending { turnDigest } } }`;
export const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { id status } }`;
export const SET_SKILL = `mutation($input: SetConversationSkillInput!) { setConversationSkill(input: $input) { id skill { identifier } } }`;
export const DECIDE_IN_CHAT = `mutation($input: DecideConversationInput!) { decideConversationApproval(input: $input) { id status } }`;
export const CREATE_CONVERSATION = `mutation($input: CreateConversationInput!) { createConversation(input: $input) {
  id status owner { username } pending { turnDigest } } }`;
export const CONVERSATION_EVENTS = `subscription($id: ID!) { conversationEvents(conversationId: $id) {
  kind conversationId status stepCount message { role text } } }`;

export const REVOKE = `mutation($id: ID!) { revokeApiToken(tokenId: $id) }`;
export const START = `mutation($input: StartRunInput!) { startRun(input: $input) { id status owner { username } } }`;

/** Every `extensions.code` in whatever a subscription or response reported. */
export function codesIn(errors: unknown): string[] {
  return [...JSON.stringify(errors ?? null).matchAll(/"code":"([A-Z_]+)"/g)].map((m) => m[1]!);
}

/**
 * How streams were refused: their GraphQL codes, or `close <code>` where the server closed the
 * connection (a revoked token's connections close at once, 4401).
 */
export function refusalsIn(errors: unknown[]): string[] {
  return errors.flatMap((e) => {
    const code = (e as { code?: unknown } | null)?.code;
    return typeof code === 'number' ? [`close ${code}`] : codesIn([e]);
  });
}

/**
 * An operation sent on a revoked token's connection: UNAUTHENTICATED where it reached the server
 * before the revocation closed the connection (through Redis that takes a moment), else the
 * close (4401) itself, or the refused reconnect (4401 again): the same refusal either way.
 */
export function unauthenticatedIn(errors: unknown[]): string[] {
  return refusalsIn(errors).map((c) => (c === 'close 4401' ? 'UNAUTHENTICATED' : c));
}

/** A refused operation: exactly this code, one error, and no data at all. */
export function expectRefused(res: GqlResponse<unknown>, code: string, what: string): void {
  // a refused nullable field answers { field: null }; a non-null one nulls the whole data
  const data = res.data && Object.values(res.data).every((v) => v === null) ? null : (res.data ?? null);
  expect({ what, codes: codesIn(res.errors), data }).toEqual({
    what,
    codes: [code],
    data: null,
  });
}

/** A nullable lookup that hides the thing: `{ field: null }` and no error at all. */
export function expectHidden(res: GqlResponse<unknown>, field: string, what: string): void {
  expect({ what, status: res.status, errors: res.errors ?? [], data: res.data }).toEqual({
    what,
    status: 200,
    errors: [],
    data: { [field]: null },
  });
}

/** The response without where it came from: two refusals must be indistinguishable. */
export const shapeOf = (res: GqlResponse<unknown>) => ({
  status: res.status,
  data: res.data ?? null,
  errors: (res.errors ?? []).map((e) => ({ message: e.message, extensions: e.extensions })),
});
