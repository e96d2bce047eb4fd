/** The slices of the public API (schema.gql) that the client reads. */

export type RunStatus =
  | 'QUEUED'
  | 'RUNNING'
  | 'WAITING_FOR_APPROVAL'
  | 'WAITING_FOR_INPUT'
  | 'DECISION_RECORDED'
  | 'COMPLETED'
  | 'FAILED'
  | 'CANCELLED';

export type DenialReason = 'VARIANT' | 'SKIP';

export type Grant = 'AGENT_APPROVE' | 'CHAT';

export interface Viewer {
  user: { id: string; username: string; displayName: string; locale: string; isAdmin: boolean };
  grants: Grant[];
  mayDecideApprovals: boolean;
}

export interface PendingToolCall {
  callId: string;
  toolName: string;
  writes: boolean;
  arguments: unknown;
  preview: string[];
}

export interface PendingTurn {
  kind: 'APPROVAL' | 'INPUT';
  turn: number;
  turnDigest: string;
  calls: PendingToolCall[];
  inputRequest: { toolName: string; question: string | null; schema: unknown } | null;
  waitingSince: string;
}

export interface InboxRun {
  id: string;
  status: RunStatus;
  stepCount: number;
  createdAt: string;
  owner: { username: string; displayName: string };
  configuration: { name: string; requireSecondApprover: boolean };
  pending: PendingTurn | null;
}

export interface InboxItem {
  run: InboxRun;
  detailVisible: boolean;
  mayApprove: boolean;
  /** Why `mayApprove` is false (SELF_APPROVAL_DENIED, APPROVER_NOT_PERMITTED); null where it is true. */
  approveRefusal: string | null;
  decidableHere: boolean;
}

export interface RunProgressEvent {
  kind: 'PROGRESS' | 'SETTLED';
  runId: string;
  stepCount: number;
  status: RunStatus;
  turn: number;
  keepAlive: boolean;
}

export interface Language {
  /** Unique across sites: "<siteId>:<languageId>". */
  id: string;
  languageId: number;
  isoCode: string;
  title: string;
}

export interface PageNode {
  id: string;
  title: string;
  slug: string;
  /** The page's languages the viewer may work in. */
  editableLanguages?: Language[];
  children?: PageNode[];
}

export interface Site {
  id: string;
  name: string;
  languages: Language[];
  rootPage: PageNode;
}

export interface SkillCatalogueEntry {
  identifier: string;
  name: string;
  description: string;
  isProcess: boolean;
  skillId: string | null;
}

export type ConversationStatus = 'IDLE' | 'PROCESSING' | 'AWAITING_APPROVAL' | 'AWAITING_INPUT' | 'FAILED';

export interface Message {
  id: string;
  role: 'USER' | 'ASSISTANT' | 'NOTICE';
  text: string;
  notice: string | null;
  runId: string | null;
  createdAt: string;
}

export interface Conversation {
  id: string;
  title: string;
  status: ConversationStatus;
  viewContext: { pageId: string | null; languageId: number | null; module: string | null };
  skill: { identifier: string; skillId: string | null; isProcess: boolean; startPending: boolean } | null;
  messages: Message[];
  lastRunId: string | null;
  approvalRunId: string | null;
  pending: PendingTurn | null;
  updatedAt: string;
}

export interface ConversationSummary {
  id: string;
  title: string;
  status: ConversationStatus;
  updatedAt: string;
}

export interface ConversationEvent {
  kind: 'MESSAGE' | 'STATUS' | 'PROGRESS';
  conversationId: string;
  status: ConversationStatus;
  message: Message | null;
  stepCount: number | null;
}
