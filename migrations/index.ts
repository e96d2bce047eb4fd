// The ordered list of migrations. `npm run migration:generate -- <Name>` appends to it.
import { IndexThePickups1796288295193 } from './1796288295193-index-the-pickups';
import { IndexUnfinishedRunsOnly1796300000000 } from './1796300000000-index-unfinished-runs-only';
import { SendWebhooksFromAnOutbox1796170000000 } from './1796170000000-send-webhooks-from-an-outbox';
import { ExpireAndCountApprovals1796160000000 } from './1796160000000-expire-and-count-approvals';
import { SignInThroughIdentityProvider1796150000000 } from './1796150000000-sign-in-through-identity-provider';
import { IndexTheLists1796146656078 } from './1796146656078-index-the-lists';
import { IndexTheChatAndTokenLists1796149854040 } from './1796149854040-index-the-chat-and-token-lists';
import { NotifyAuthChanges1796150000001 } from './1796150000001-notify-auth-changes';
import { CapTokensPerConfiguration1796180000000 } from './1796180000000-cap-tokens-per-configuration';
import { MarkChatTurns1796190000000 } from './1796190000000-mark-chat-turns';
import { VersionSkills1796146572698 } from './1796146572698-version-skills';
import { TrackOwnersUnfinishedRuns1796140355029 } from './1796140355029-track-owners-unfinished-runs';
import { RecordTokenCreatorsAndAudit1796138194754 } from './1796138194754-record-token-creators-and-audit';
import { CreateConversations1796024294311 } from './1796024294311-create-conversations';
import { KeepStepWritesHot1796014972382 } from './1796014972382-keep-step-writes-hot';
import { RecordDurableDecisionsAndWorkers1796014284372 } from './1796014284372-record-durable-decisions-and-workers';
import { RecordDecisions1796013122794 } from './1796013122794-record-decisions';
import { CreateRunsAndSteps1796012796249 } from './1796012796249-create-runs-and-steps';
import { CreateIdentityContentAndConfiguration1796011461455 } from './1796011461455-create-identity-content-and-configuration';
export const MIGRATIONS: Function[] = [
  CreateIdentityContentAndConfiguration1796011461455,
  CreateRunsAndSteps1796012796249,
  RecordDecisions1796013122794,
  RecordDurableDecisionsAndWorkers1796014284372,
  KeepStepWritesHot1796014972382,
  CreateConversations1796024294311,
  RecordTokenCreatorsAndAudit1796138194754,
  TrackOwnersUnfinishedRuns1796140355029,
  VersionSkills1796146572698,
  IndexTheLists1796146656078,
  IndexTheChatAndTokenLists1796149854040,
  SignInThroughIdentityProvider1796150000000,
  NotifyAuthChanges1796150000001,
  ExpireAndCountApprovals1796160000000,
  SendWebhooksFromAnOutbox1796170000000,
  CapTokensPerConfiguration1796180000000,
  MarkChatTurns1796190000000,
  IndexThePickups1796288295193,
  IndexUnfinishedRunsOnly1796300000000,
];
