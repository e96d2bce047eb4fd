// why: TypeORM needs every entity in one list for migrations and the data source; this is
// the one place in platform/ allowed to reach into the modules' persistence folders.
import { ConversationEntity } from '../../modules/conversations/persistence/conversation.entity';
import { MessageEntity } from '../../modules/conversations/persistence/message.entity';
import { WorkerHeartbeatEntity } from '../../modules/runs/persistence/worker-heartbeat.entity';
import { DecisionEntity } from '../../modules/approvals/persistence/decision.entity';
import { ApprovalVoteEntity } from '../../modules/approvals/persistence/approval-vote.entity';
import { ApiTokenEntity } from '../../modules/auth/persistence/api-token.entity';
import { AuditEventEntity } from '../../modules/auth/persistence/audit-event.entity';
import { GroupEntity } from '../../modules/auth/persistence/group.entity';
import { IdentityGroupMappingEntity } from '../../modules/auth/persistence/identity-group-mapping.entity';
import { UserEntity } from '../../modules/auth/persistence/user.entity';
import { ConfigurationEntity } from '../../modules/configurations/persistence/configuration.entity';
import { TaskEntity } from '../../modules/configurations/persistence/task.entity';
import { PageTextEntity } from '../../modules/content/persistence/page-text.entity';
import { PageEntity } from '../../modules/content/persistence/page.entity';
import { SiteLanguageEntity } from '../../modules/content/persistence/site-language.entity';
import { SiteEntity } from '../../modules/content/persistence/site.entity';
import { RunStepEntity } from '../../modules/runs/persistence/run-step.entity';
import { RunEntity } from '../../modules/runs/persistence/run.entity';
import { SkillEntity } from '../../modules/skills/persistence/skill.entity';
import { WebhookAttemptEntity } from '../../modules/webhooks/persistence/webhook-attempt.entity';
import { WebhookDeliveryEntity } from '../../modules/webhooks/persistence/webhook-delivery.entity';
import { WebhookEndpointEntity } from '../../modules/webhooks/persistence/webhook-endpoint.entity';
import { SkillVersionEntity } from '../../modules/skills/persistence/skill-version.entity';

export const ENTITIES = [
  UserEntity,
  GroupEntity,
  IdentityGroupMappingEntity,
  ApiTokenEntity,
  AuditEventEntity,
  SiteEntity,
  SiteLanguageEntity,
  PageEntity,
  PageTextEntity,
  SkillEntity,
  SkillVersionEntity,
  ConfigurationEntity,
  TaskEntity,
  RunEntity,
  RunStepEntity,
  DecisionEntity,
  ApprovalVoteEntity,
  WorkerHeartbeatEntity,
  ConversationEntity,
  MessageEntity,
  WebhookEndpointEntity,
  WebhookDeliveryEntity,
  WebhookAttemptEntity,
];
