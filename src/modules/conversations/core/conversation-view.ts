/** A conversation as the conversations module hands it out (the stored row's values). */
export interface ConversationView {
  readonly id: string;
  readonly ownerId: number;
  readonly title: string;
  readonly status: string;
  readonly viewPageId: number | null;
  readonly viewLanguageId: number | null;
  readonly viewModule: string | null;
  readonly skillIdentifier: string | null;
  readonly skillId: number | null;
  readonly skillIsProcess: boolean;
  readonly skillStartPending: boolean;
  readonly lastRunId: string | null;
  readonly activeRunId: string | null;
  readonly deciding: boolean;
  readonly archivedAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** One message of a conversation. */
export interface MessageView {
  readonly id: string;
  readonly conversationId: string;
  readonly role: string;
  readonly text: string;
  readonly notice: string | null;
  readonly noticeArgs: Record<string, unknown> | null;
  readonly runId: string | null;
  readonly createdAt: Date;
}
