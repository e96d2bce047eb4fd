import { Field, ID, InputType, Int, ObjectType, PartialType, registerEnumType } from '@nestjs/graphql';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { EdgeType, PageInfoModel } from '../../../platform/graphql/connection.model';
import { GraphQLJSON } from '../../../platform/graphql/scalars';
import { enumNameOf, WEBHOOK_EVENT_TYPES } from '../core/event-types';

/** The events as GraphQL names them: `run.waiting` is RUN_WAITING. */
export const WebhookEventTypeEnum = Object.fromEntries(
  WEBHOOK_EVENT_TYPES.map((t) => [enumNameOf(t), enumNameOf(t)]),
) as Record<string, string>;
registerEnumType(WebhookEventTypeEnum, {
  name: 'WebhookEventType',
  description: 'What a webhook endpoint may subscribe to (docs/webhooks.md has each payload).',
  valuesMap: {
    RUN_WAITING: { description: '`run.waiting`: a run stopped for an approval or an input.' },
    DECISION_RECORDED: { description: '`decision.recorded`: someone approved, denied or answered a run.' },
    RUN_SETTLED: { description: '`run.settled`: a run completed, failed or was cancelled.' },
    RUN_EXPIRED: { description: "`run.expired`: nobody decided a run's approval by its deadline." },
  },
});

export enum WebhookDeliveryStatusEnum {
  PENDING = 'PENDING',
  SUCCEEDED = 'SUCCEEDED',
  FAILED = 'FAILED',
}
registerEnumType(WebhookDeliveryStatusEnum, { name: 'WebhookDeliveryStatus' });

const EVENT_NAMES = Object.keys(WebhookEventTypeEnum);

@ObjectType('WebhookEndpoint', { description: 'Where webhooks go (admins only); never its secret.' })
export class WebhookEndpointModel {
  @Field(() => ID) id: string;
  @Field() url: string;
  @Field(() => [WebhookEventTypeEnum]) eventTypes: string[];
  @Field() enabled: boolean;
  @Field() description: string;
  @Field() createdAt: Date;
  @Field() updatedAt: Date;
}

@ObjectType('WebhookEndpointSecret', {
  description: 'An endpoint with its signing secret: shown once, on creation and on rotation.',
})
export class WebhookEndpointSecretModel {
  @Field(() => WebhookEndpointModel) endpoint: WebhookEndpointModel;
  @Field({ description: 'The Standard Webhooks secret (`whsec_...`) to verify signatures with.' })
  secret: string;
}

@ObjectType('WebhookAttempt', { description: 'One try of a delivery.' })
export class WebhookAttemptModel {
  @Field() attemptedAt: Date;
  @Field(() => Int, { nullable: true, description: "The receiver's status code; null when none came." })
  statusCode: number | null;
  @Field(() => String, { nullable: true, description: 'Why the try failed; null when it succeeded.' })
  error: string | null;
  @Field(() => Int) durationMs: number;
}

@ObjectType('WebhookDelivery', { description: 'One event for one endpoint, with every try.' })
export class WebhookDeliveryModel {
  @Field(() => ID) id: string;
  @Field(() => ID) endpointId: string;
  @Field(() => ID, { description: 'The `webhook-id` header: the same for every endpoint and for a replay.' })
  eventId: string;
  @Field(() => WebhookEventTypeEnum) eventType: string;
  @Field(() => ID, { nullable: true }) runId: string | null;
  @Field(() => GraphQLJSON, { description: 'The body as sent.' }) payload: unknown;
  @Field(() => WebhookDeliveryStatusEnum) status: WebhookDeliveryStatusEnum;
  @Field(() => [WebhookAttemptModel]) attempts: WebhookAttemptModel[];
  @Field(() => Date, { nullable: true, description: 'When the next try is due; null once done.' })
  nextAttemptAt: Date | null;
  @Field(() => ID, { nullable: true, description: 'The delivery this one replays.' })
  replayOf: string | null;
  @Field() createdAt: Date;
  @Field(() => Date, { nullable: true }) finishedAt: Date | null;
}

@ObjectType('WebhookEndpointEdge')
export class WebhookEndpointEdgeModel extends EdgeType(WebhookEndpointModel) {}

@ObjectType('WebhookEndpointConnection', { description: 'A page of webhook endpoints (docs/pagination.md).' })
export class WebhookEndpointConnectionModel {
  @Field(() => [WebhookEndpointModel]) nodes: WebhookEndpointModel[];
  @Field(() => [WebhookEndpointEdgeModel]) edges: WebhookEndpointEdgeModel[];
  @Field(() => PageInfoModel) pageInfo: PageInfoModel;
}

@ObjectType('WebhookDeliveryEdge')
export class WebhookDeliveryEdgeModel extends EdgeType(WebhookDeliveryModel) {}

@ObjectType('WebhookDeliveryConnection', { description: 'A page of the delivery log, newest first.' })
export class WebhookDeliveryConnectionModel {
  @Field(() => [WebhookDeliveryModel]) nodes: WebhookDeliveryModel[];
  @Field(() => [WebhookDeliveryEdgeModel]) edges: WebhookDeliveryEdgeModel[];
  @Field(() => PageInfoModel) pageInfo: PageInfoModel;
}

@InputType('CreateWebhookEndpointInput')
export class CreateWebhookEndpointInput {
  @Field({ description: 'http(s); must resolve to public addresses (docs/webhooks.md).' })
  @IsString()
  @MaxLength(2000)
  url: string;

  @Field(() => [WebhookEventTypeEnum])
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EVENT_NAMES.length)
  @IsIn(EVENT_NAMES, { each: true })
  eventTypes: string[];

  @Field(() => Boolean, { nullable: true, description: 'Receives events; new endpoints default to true.' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string | null;
}

@InputType('UpdateWebhookEndpointInput', { description: 'What to change; fields left out stay.' })
export class UpdateWebhookEndpointInput extends PartialType(CreateWebhookEndpointInput) {}
