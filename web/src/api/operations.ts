/**
 * The GraphQL documents the client sends: all of them public contract operations. Each string
 * carries the `GraphQL` magic comment so `npm run codegen` reads it and writes its result and
 * variable types into ./generated.ts (the `${…}` fragment interpolations are sent to the server;
 * codegen finds the fragments by name).
 */

export const VIEWER = /* GraphQL */ `
  query Viewer {
    viewer {
      user {
        id
        username
        displayName
        locale
        isAdmin
      }
      grants
      mayDecideApprovals
    }
  }
`;

const PENDING_TURN = /* GraphQL */ `
  fragment PendingTurnFields on PendingTurn {
    kind
    turn
    turnDigest
    waitingSince
    expiresAt
    approvalsRequired
    approvals {
      id
      decidedAt
      decidedBy {
        id
        displayName
      }
    }
    calls {
      callId
      toolName
      writes
      arguments
      preview
    }
    inputRequest {
      toolName
      question
      schema
    }
  }
`;

const INBOX_ITEM = /* GraphQL */ `
  fragment InboxItemFields on InboxItem {
    detailVisible
    mayApprove
    approveRefusal
    decidableHere
    run {
      id
      status
      stepCount
      createdAt
      owner {
        username
        displayName
      }
      configuration {
        name
        requireSecondApprover
      }
      pending {
        ...PendingTurnFields
      }
    }
  }
`;

export const INBOX = /* GraphQL */ `
  query Inbox {
    inbox {
      ...InboxItemFields
    }
  }
  ${INBOX_ITEM}
  ${PENDING_TURN}
`;

export const INBOX_CHANGED = /* GraphQL */ `
  subscription InboxChanged {
    inboxChanged {
      run {
        id
        status
      }
    }
  }
`;

export const RUN_PROGRESS = /* GraphQL */ `
  subscription RunProgress($runId: ID!) {
    runProgress(runId: $runId) {
      kind
      runId
      stepCount
      status
      turn
      keepAlive
    }
  }
`;

export const RUN_HAND_BACK = /* GraphQL */ `
  query RunHandBack($id: ID!) {
    run(id: $id) {
      id
      status
      handBack {
        code
      }
    }
  }
`;

const RECEIPT = /* GraphQL */ `
  fragment ReceiptFields on DecisionReceipt {
    path
    run {
      id
      status
    }
  }
`;

export const APPROVE_RUN = /* GraphQL */ `
  mutation ApproveRun($input: ApproveRunInput!) {
    approveRun(input: $input) {
      ...ReceiptFields
    }
  }
  ${RECEIPT}
`;

export const DENY_RUN = /* GraphQL */ `
  mutation DenyRun($input: DenyRunInput!) {
    denyRun(input: $input) {
      ...ReceiptFields
    }
  }
  ${RECEIPT}
`;

export const SUBMIT_RUN_INPUT = /* GraphQL */ `
  mutation SubmitRunInput($input: SubmitRunInputInput!) {
    submitRunInput(input: $input) {
      ...ReceiptFields
    }
  }
  ${RECEIPT}
`;

const LANGUAGE = /* GraphQL */ `
  fragment LanguageFields on Language {
    id
    languageId
    isoCode
    title
  }
`;

/**
 * Three levels of the page tree below each site's root: Demo's whole tree, and then some.
 * why: written out, not as a page fragment: graphql-armor counts a fragment spread as a level,
 * and the tree through a fragment would pass the depth limit (10).
 */
export const SITES = /* GraphQL */ `
  query Sites($languageId: Int = 0) {
    sites {
      id
      name
      languages {
        ...LanguageFields
      }
      rootPage {
        id
        slug
        title(languageId: $languageId)
        editableLanguages {
          ...LanguageFields
        }
        children {
          id
          slug
          title(languageId: $languageId)
          editableLanguages {
            ...LanguageFields
          }
          children {
            id
            slug
            title(languageId: $languageId)
            editableLanguages {
              ...LanguageFields
            }
            children {
              id
              slug
              title(languageId: $languageId)
              editableLanguages {
                ...LanguageFields
              }
            }
          }
        }
      }
    }
  }
  ${LANGUAGE}
`;

export const SKILL_CATALOGUE = /* GraphQL */ `
  query SkillCatalogue {
    skillCatalogue {
      identifier
      name
      description
      isProcess
      skillId
    }
  }
`;

const MESSAGE = /* GraphQL */ `
  fragment MessageFields on Message {
    id
    role
    text
    notice
    runId
    createdAt
  }
`;

const CONVERSATION = /* GraphQL */ `
  fragment ConversationFields on Conversation {
    id
    title
    status
    updatedAt
    lastRunId
    approvalRunId
    viewContext {
      pageId
      languageId
      module
    }
    skill {
      identifier
      skillId
      isProcess
      startPending
    }
    messages {
      ...MessageFields
    }
    pending {
      ...PendingTurnFields
    }
  }
  ${MESSAGE}
  ${PENDING_TURN}
`;

export const CONVERSATIONS = /* GraphQL */ `
  query Conversations {
    conversations {
      id
      title
      status
      updatedAt
    }
  }
`;

export const CONVERSATION_QUERY = /* GraphQL */ `
  query Conversation($id: ID!) {
    conversation(id: $id) {
      ...ConversationFields
    }
  }
  ${CONVERSATION}
`;

export const CREATE_CONVERSATION = /* GraphQL */ `
  mutation CreateConversation($input: CreateConversationInput!) {
    createConversation(input: $input) {
      ...ConversationFields
    }
  }
  ${CONVERSATION}
`;

export const SET_CONVERSATION_SKILL = /* GraphQL */ `
  mutation SetConversationSkill($input: SetConversationSkillInput!) {
    setConversationSkill(input: $input) {
      ...ConversationFields
    }
  }
  ${CONVERSATION}
`;

export const SEND_MESSAGE = /* GraphQL */ `
  mutation SendMessage($input: SendMessageInput!) {
    sendMessage(input: $input) {
      ...ConversationFields
    }
  }
  ${CONVERSATION}
`;

export const DECIDE_CONVERSATION = /* GraphQL */ `
  mutation DecideConversationApproval($input: DecideConversationInput!) {
    decideConversationApproval(input: $input) {
      ...ConversationFields
    }
  }
  ${CONVERSATION}
`;

export const SUBMIT_CONVERSATION_INPUT = /* GraphQL */ `
  mutation SubmitConversationInput($input: SubmitConversationInputInput!) {
    submitConversationInput(input: $input) {
      ...ConversationFields
    }
  }
  ${CONVERSATION}
`;

export const CONVERSATION_EVENTS = /* GraphQL */ `
  subscription ConversationEvents($conversationId: ID!) {
    conversationEvents(conversationId: $conversationId) {
      kind
      conversationId
      status
      stepCount
      message {
        ...MessageFields
      }
      delta {
        messageId
        offset
        text
        final
      }
    }
  }
  ${MESSAGE}
`;

export const STOP_TURN = /* GraphQL */ `
  mutation StopTurn($runId: ID!) {
    cancelRun(runId: $runId) {
      id
      status
    }
  }
`;

export const PAGE_CONTEXT = /* GraphQL */ `
  query PageContext($id: ID!, $languageId: Int) {
    page(id: $id) {
      title(languageId: $languageId)
      slug
      site {
        name
        languages {
          id
          languageId
          title
        }
      }
    }
  }
`;
