import { Field, ID, ObjectType } from '@nestjs/graphql';
import { GraphQLJSON } from '../../../platform/graphql/scalars';

@ObjectType('AuditEvent', {
  description:
    'A change to users or tokens: who made it, how and when. Kept when the users it names are gone.',
})
export class AuditEventModel {
  @Field(() => ID) id: string;
  @Field() at: Date;
  @Field({ description: 'USER_CREATED, TOKEN_CREATED, TOKEN_REVOKED or TOKENS_REVOKED.' }) action: string;
  @Field({
    description:
      '"api" (an authenticated user) or "cli" (outside the API: the command line, or the demo data loaded at an embedded server\'s first start).',
  })
  via: string;
  @Field(() => ID, { nullable: true, description: 'The acting user (null: outside the API).' })
  actorUserId: string | null;
  @Field(() => String, { nullable: true, description: 'The acting username when the change was made.' })
  actorUsername: string | null;
  @Field(() => ID, { nullable: true, description: 'The token the actor authenticated with.' })
  actorTokenId: string | null;
  @Field(() => ID, { nullable: true, description: 'The user the change is about.' })
  subjectUserId: string | null;
  @Field(() => GraphQLJSON, { description: 'What changed (e.g. isAdmin and groupIds of a new user).' })
  details: Record<string, unknown>;
}
