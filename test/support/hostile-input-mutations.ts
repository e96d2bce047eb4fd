// Every mutation of schema.gql as the hostile-input fuzz (test/e2e/hostile-input-*.e2e-spec.ts)
// sends it: its document, who sends it, its arguments with their kinds and limits, and a valid
// baseline that succeeds against the fixture (hostile-input.ts).
import {
  CONVERSATION_ID,
  DECISION_ARGS,
  decisionBase,
  catalogueUpsert,
  inputMutation,
  RECEIPT,
  RUN_ID,
  scriptWith,
  type MutationSpec,
  type Vars,
} from './hostile-input-args';

/**
 * Every mutation in schema.gql. A new mutation (the conversation mutations) is one entry here:
 * its document, its arguments with their kinds and limits, and a baseline that succeeds.
 */
export const MUTATIONS: readonly MutationSpec[] = [
  {
    name: 'startRun',
    as: 'alice',
    document: inputMutation('startRun', 'StartRunInput', 'id status'),
    inputVar: 'input',
    args: [
      {
        name: 'configurationId',
        kind: 'serialId',
        required: true,
        unknown: '2147483647',
        alsoCodes: ['NOT_FOUND'],
      },
      { name: 'prompt', kind: 'string', required: true, nonEmpty: true, max: 20_000 },
      { name: 'subjectPageId', kind: 'serialId', unknown: '2147483647', alsoCodes: ['NOT_FOUND'] },
      { name: 'subjectLanguageId', kind: 'int', min: 0, max: 1_000_000 },
      { name: 'maxIterations', kind: 'int', min: 1, max: 1_000_000 },
      { name: 'workspaceId', kind: 'int', min: 0, max: 1_000_000 },
    ],
    base: (f) => ({
      input: {
        configurationId: f.ids.configurations['demo-editor'],
        prompt: 'Sharpen the SEO title',
        subjectPageId: f.ids.pages.Home,
        subjectLanguageId: 0,
        maxIterations: 3,
        workspaceId: 0,
      },
    }),
  },
  {
    name: 'approveRun',
    as: 'admin',
    document: inputMutation('approveRun', 'ApproveRunInput', RECEIPT),
    inputVar: 'input',
    args: DECISION_ARGS,
    base: (f) => decisionBase(f.approveRun, 'fuzz-approve'),
  },
  {
    name: 'denyRun',
    as: 'admin',
    document: inputMutation('denyRun', 'DenyRunInput', RECEIPT),
    inputVar: 'input',
    args: [...DECISION_ARGS, { name: 'reason', kind: 'enum', unknown: 'skip' }],
    base: (f) => {
      const vars = decisionBase(f.denyRun, 'fuzz-deny');
      return { input: { ...(vars.input as Vars), reason: 'SKIP' } };
    },
  },
  {
    name: 'submitRunInput',
    as: 'admin',
    document: inputMutation('submitRunInput', 'SubmitRunInputInput', RECEIPT),
    inputVar: 'input',
    args: [
      ...DECISION_ARGS,
      {
        name: 'values',
        kind: 'json',
        required: true,
        embed: (hostile) => ({ tone: 'formal', note: hostile }),
        alsoCodes: ['INVALID_INPUT'],
      },
    ],
    base: (f) => {
      const vars = decisionBase(f.inputRun, 'fuzz-submit');
      return { input: { ...(vars.input as Vars), values: { tone: 'formal' } } };
    },
  },
  {
    name: 'cancelRun',
    as: 'alice',
    document: 'mutation Fuzz($runId: ID!) { cancelRun(runId: $runId) { id status } }',
    inputVar: null,
    args: [RUN_ID],
    base: (f) => ({ runId: f.cancelRun }),
  },
  {
    ...catalogueUpsert('upsertConfiguration', 'ConfigurationInput', [
      { name: 'provider', kind: 'string', required: true, nonEmpty: true, max: 32, unknown: 'nope' },
      { name: 'model', kind: 'string', required: true, nonEmpty: true, max: 200 },
      { name: 'providerOptions', kind: 'json', embed: scriptWith },
      { name: 'systemPrompt', kind: 'string', max: 50_000 },
      { name: 'isActive', kind: 'bool' },
      { name: 'requireSecondApprover', kind: 'bool' },
      // above the ceiling is stored clamped (docs/run-lifecycle.md): no maximum to refuse
      { name: 'maxIterations', kind: 'int', min: 1 },
      { name: 'privacyLevel', kind: 'enum', unknown: 'full' },
      { name: 'allowedGroupIds', kind: 'idList', maxItems: 100, unknown: ['2147483647'] },
      { name: 'skillIdentifiers', kind: 'stringList', max: 100, maxItems: 100, unknown: ['no-such-skill'] },
    ]),
    base: (f) => ({
      input: {
        identifier: 'fuzz-configuration',
        name: 'Fuzz',
        provider: 'scripted',
        model: 'scripted',
        providerOptions: scriptWith({ pageId: 1 }),
        systemPrompt: 'Be brief.',
        isActive: true,
        requireSecondApprover: false,
        maxIterations: 3,
        privacyLevel: 'FULL',
        allowedGroupIds: [f.editors],
        skillIdentifiers: ['tone-of-voice'],
      },
    }),
  },
  {
    ...catalogueUpsert('upsertTask', 'TaskInput', [
      {
        name: 'configurationIdentifier',
        kind: 'string',
        required: true,
        nonEmpty: true,
        max: 100,
        unknown: 'no-such-configuration',
      },
      { name: 'skillIdentifiers', kind: 'stringList', max: 100, maxItems: 100, unknown: ['no-such-skill'] },
      { name: 'groupIds', kind: 'idList', maxItems: 100, unknown: ['2147483647'] },
      { name: 'priority', kind: 'int', min: -1_000_000, max: 1_000_000 },
    ]),
    base: (f) => ({
      input: {
        identifier: 'fuzz-task',
        name: 'Fuzz',
        configurationIdentifier: 'demo-editor',
        skillIdentifiers: ['tone-of-voice'],
        groupIds: [f.editors],
        priority: 3,
      },
    }),
  },
  {
    ...catalogueUpsert('upsertSkill', 'SkillInput', [
      { name: 'description', kind: 'string', max: 2_000 },
      { name: 'body', kind: 'string', required: true, nonEmpty: true, max: 60_000 },
      { name: 'isProcess', kind: 'bool' },
      { name: 'enabled', kind: 'bool' },
    ]),
    base: () => ({
      input: {
        identifier: 'fuzz-skill',
        name: 'Fuzz',
        description: 'A skill',
        body: 'Write short.',
        isProcess: false,
        enabled: true,
      },
    }),
  },
  {
    name: 'createUser',
    as: 'admin',
    document: inputMutation('createUser', 'CreateUserInput', 'id username'),
    inputVar: 'input',
    args: [
      { name: 'username', kind: 'string', required: true, nonEmpty: true, max: 64, offPattern: 'Fuzz User' },
      { name: 'displayName', kind: 'string', max: 200 },
      { name: 'locale', kind: 'string', nonEmpty: true, max: 16, offPattern: 'english!' },
      { name: 'isAdmin', kind: 'bool' },
      { name: 'groupIds', kind: 'idList', maxItems: 100, unknown: ['2147483647'], alsoCodes: ['NOT_FOUND'] },
    ],
    base: (f) => ({
      input: {
        username: 'fuzz-user',
        displayName: 'Fuzz',
        locale: 'de',
        isAdmin: false,
        groupIds: [f.editors],
      },
    }),
  },
  {
    name: 'createApiToken',
    as: 'admin',
    document: `mutation Fuzz($userId: ID!, $label: String!, $expiresAt: DateTime) {
      createApiToken(userId: $userId, label: $label, expiresAt: $expiresAt) { tokenId } }`,
    inputVar: null,
    args: [
      // why: an admin naming another user is FORBIDDEN (tokens for others come from the CLI)
      { name: 'userId', kind: 'serialId', required: true, unknown: '2147483647', alsoCodes: ['FORBIDDEN'] },
      { name: 'label', kind: 'string', required: true, nonEmpty: true, max: 200 },
      { name: 'expiresAt', kind: 'date' },
    ],
    base: (f) => ({ userId: f.ids.users.admin, label: 'fuzz', expiresAt: '2999-01-01T00:00:00.000Z' }),
  },
  {
    name: 'revokeApiToken',
    as: 'admin',
    document: 'mutation Fuzz($tokenId: ID!) { revokeApiToken(tokenId: $tokenId) }',
    inputVar: null,
    args: [
      {
        name: 'tokenId',
        kind: 'uuid',
        required: true,
        unknown: '5b0c2a3e-9d1f-4c6b-8e2a-7f3d9c1b0a42',
        alsoCodes: ['NOT_FOUND'],
      },
    ],
    base: (f) => ({ tokenId: f.tokenId }),
  },
  {
    name: 'revokeApiTokens',
    as: 'admin',
    document: 'mutation Fuzz($userId: ID!) { revokeApiTokens(userId: $userId) }',
    inputVar: null,
    args: [
      { name: 'userId', kind: 'serialId', required: true, unknown: '2147483647', alsoCodes: ['NOT_FOUND'] },
    ],
    base: (f) => ({ userId: f.tokenUser }),
  },
  {
    name: 'createConversation',
    as: 'alice',
    document: inputMutation('createConversation', 'CreateConversationInput', 'id status'),
    inputVar: 'input',
    args: [
      { name: 'pageId', kind: 'serialId', unknown: '2147483647', alsoCodes: ['PAGE_NOT_ACCESSIBLE'] },
      { name: 'languageId', kind: 'int', min: 0, unknown: 2, alsoCodes: ['LANGUAGE_NOT_ACCESSIBLE'] },
      { name: 'skill', kind: 'string', max: 100, unknown: 'no-such-skill', alsoCodes: ['SKILL_UNKNOWN'] },
      { name: 'title', kind: 'string', max: 200 },
    ],
    base: (f) => ({
      input: { pageId: f.ids.pages.Home, languageId: 1, skill: 'tone-of-voice', title: 'Fuzz' },
    }),
  },
  {
    name: 'setConversationSkill',
    as: 'alice',
    document: inputMutation('setConversationSkill', 'SetConversationSkillInput', 'id status'),
    inputVar: 'input',
    args: [
      { ...CONVERSATION_ID },
      { name: 'skill', kind: 'string', max: 100, unknown: 'no-such-skill', alsoCodes: ['SKILL_UNKNOWN'] },
    ],
    base: (f) => ({ input: { conversationId: f.conversations.skill, skill: 'tone-of-voice' } }),
  },
  {
    name: 'sendMessage',
    as: 'alice',
    document: inputMutation('sendMessage', 'SendMessageInput', 'id status'),
    inputVar: 'input',
    args: [
      { ...CONVERSATION_ID },
      { name: 'text', kind: 'string', required: true, nonEmpty: true, max: 20_000 },
      { name: 'viewContext', kind: 'object' },
      {
        name: 'viewContext.pageId',
        kind: 'serialId',
        unknown: '2147483647',
        alsoCodes: ['NOT_FOUND', 'PAGE_NOT_ACCESSIBLE'],
      },
      { name: 'viewContext.languageId', kind: 'int', min: 0 },
      { name: 'viewContext.module', kind: 'string', max: 100 },
    ],
    base: (f) => ({
      input: {
        conversationId: f.conversations.send,
        text: 'What is on this page?',
        viewContext: { pageId: f.ids.pages.About, languageId: 0, module: 'page' },
      },
    }),
  },
  {
    name: 'decideConversationApproval',
    as: 'alice',
    document: inputMutation('decideConversationApproval', 'DecideConversationInput', 'id status'),
    inputVar: 'input',
    args: [
      { ...CONVERSATION_ID },
      { name: 'turnDigest', kind: 'string', required: true, nonEmpty: true, max: 128 },
      { name: 'approve', kind: 'bool', required: true },
      { name: 'denialReason', kind: 'enum', unknown: 'skip' },
    ],
    base: (f) => ({
      input: {
        conversationId: f.conversations.approval.id,
        turnDigest: f.conversations.approval.digest,
        approve: false,
        denialReason: 'SKIP',
      },
    }),
  },
  {
    name: 'submitConversationInput',
    as: 'alice',
    document: inputMutation('submitConversationInput', 'SubmitConversationInputInput', 'id status'),
    inputVar: 'input',
    args: [
      { ...CONVERSATION_ID },
      { name: 'turnDigest', kind: 'string', required: true, nonEmpty: true, max: 128 },
      {
        name: 'values',
        kind: 'json',
        required: true,
        embed: (hostile) => ({ tone: 'formal', note: hostile }),
        alsoCodes: ['INVALID_INPUT'],
      },
    ],
    base: (f) => ({
      input: {
        conversationId: f.conversations.input.id,
        turnDigest: f.conversations.input.digest,
        values: { tone: 'formal' },
      },
    }),
  },
];
