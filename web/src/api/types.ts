/**
 * Short names for the generated types (./generated.ts, `npm run codegen`) the components pass
 * around. Nothing here is written by hand: each is a result type of an operation or fragment
 * in operations.ts, so a field the client reads exists in schema.gql with exactly this type.
 */
import type {
  ConversationEventsSubscription,
  ConversationFieldsFragment,
  ConversationsQuery,
  InboxItemFieldsFragment,
  LanguageFieldsFragment,
  MessageFieldsFragment,
  PageContextQuery,
  PendingTurnFieldsFragment,
  RunProgressSubscription,
  SitesQuery,
  SkillCatalogueQuery,
  ViewerQuery,
} from './generated';

export type { ConversationStatus, DenialReason, ErrorCode, Grant, RunStatus } from './generated';

export type Viewer = ViewerQuery['viewer'];
export type PendingTurn = PendingTurnFieldsFragment;
export type InboxItem = InboxItemFieldsFragment;
export type InboxRun = InboxItem['run'];
export type RunProgressEvent = RunProgressSubscription['runProgress'];
export type Language = LanguageFieldsFragment;
export type Site = SitesQuery['sites'][number];
/** A page of the tree SITES asks for (three levels deep; the last level has no children). */
export type PageNode = Omit<Site['rootPage'], 'children'> & { readonly children?: readonly PageNode[] };
export type SkillCatalogueEntry = SkillCatalogueQuery['skillCatalogue'][number];
export type Message = MessageFieldsFragment;
export type Conversation = ConversationFieldsFragment;
export type ConversationSummary = ConversationsQuery['conversations'][number];
export type ConversationEvent = ConversationEventsSubscription['conversationEvents'];
export type PageContext = NonNullable<PageContextQuery['page']>;
