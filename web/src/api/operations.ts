/** The GraphQL documents the client sends: all of them public contract operations. */

export const VIEWER = `query Viewer {
  viewer { user { id username displayName locale isAdmin } grants mayDecideApprovals }
}`;

const PENDING = `pending {
  kind turn turnDigest waitingSince
  calls { callId toolName writes arguments preview }
  inputRequest { toolName question schema }
}`;

export const INBOX = `query Inbox {
  inbox {
    detailVisible mayApprove approveRefusal decidableHere
    run {
      id status stepCount createdAt
      owner { username displayName }
      configuration { name requireSecondApprover }
      ${PENDING}
    }
  }
}`;

export const INBOX_CHANGED = `subscription InboxChanged { inboxChanged { run { id status } } }`;

export const RUN_PROGRESS = `subscription RunProgress($runId: ID!) {
  runProgress(runId: $runId) { kind runId stepCount status turn keepAlive }
}`;

export const RUN_HAND_BACK = `query RunHandBack($id: ID!) { run(id: $id) { id status handBack { code } } }`;

const RECEIPT = `path run { id status }`;
export const APPROVE_RUN = `mutation ApproveRun($input: ApproveRunInput!) { approveRun(input: $input) { ${RECEIPT} } }`;
export const DENY_RUN = `mutation DenyRun($input: DenyRunInput!) { denyRun(input: $input) { ${RECEIPT} } }`;
export const SUBMIT_RUN_INPUT = `mutation SubmitRunInput($input: SubmitRunInputInput!) {
  submitRunInput(input: $input) { ${RECEIPT} }
}`;

/** Three levels of the page tree below each site's root: Demo's whole tree, and then some. */
const PAGE_NODE = 'id slug title(languageId: $languageId) editableLanguages { id languageId isoCode title }';
const PAGE_TREE = `${PAGE_NODE}
  children { ${PAGE_NODE}
    children { ${PAGE_NODE}
      children { ${PAGE_NODE} } } }`;

export const SITES = `query Sites($languageId: Int = 0) {
  sites { id name languages { id languageId isoCode title } rootPage { ${PAGE_TREE} } }
}`;

export const SKILL_CATALOGUE = `query SkillCatalogue {
  skillCatalogue { identifier name description isProcess skillId }
}`;

const CONVERSATION = `id title status updatedAt lastRunId approvalRunId
  viewContext { pageId languageId module }
  skill { identifier skillId isProcess startPending }
  messages { id role text notice runId createdAt }
  ${PENDING}`;

export const CONVERSATIONS = `query Conversations { conversations { id title status updatedAt } }`;
export const CONVERSATION_QUERY = `query Conversation($id: ID!) { conversation(id: $id) { ${CONVERSATION} } }`;
export const CREATE_CONVERSATION = `mutation CreateConversation($input: CreateConversationInput!) {
  createConversation(input: $input) { ${CONVERSATION} }
}`;
export const SET_CONVERSATION_SKILL = `mutation SetConversationSkill($input: SetConversationSkillInput!) {
  setConversationSkill(input: $input) { ${CONVERSATION} }
}`;
export const SEND_MESSAGE = `mutation SendMessage($input: SendMessageInput!) {
  sendMessage(input: $input) { ${CONVERSATION} }
}`;
export const DECIDE_CONVERSATION = `mutation DecideConversationApproval($input: DecideConversationInput!) {
  decideConversationApproval(input: $input) { ${CONVERSATION} }
}`;
export const SUBMIT_CONVERSATION_INPUT = `mutation SubmitConversationInput($input: SubmitConversationInputInput!) {
  submitConversationInput(input: $input) { ${CONVERSATION} }
}`;
export const CONVERSATION_EVENTS = `subscription ConversationEvents($conversationId: ID!) {
  conversationEvents(conversationId: $conversationId) {
    kind conversationId status stepCount
    message { id role text notice runId createdAt }
  }
}`;

export const PAGE_CONTEXT = `query PageContext($id: ID!, $languageId: Int) {
  page(id: $id) { title(languageId: $languageId) slug site { name languages { id languageId title } } }
}`;
