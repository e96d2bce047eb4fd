import { Field, ID, ObjectType } from '@nestjs/graphql';
import { UserModel } from './user.model';

@ObjectType('ApiTokenCreated')
export class ApiTokenCreatedModel {
  @Field(() => ID) tokenId: string;
  @Field({ description: 'Shown once; only a hash is stored.' }) token: string;
}

@ObjectType('ApiToken', { description: 'A personal access token as listed: everything but the secret.' })
export class ApiTokenModel {
  @Field(() => ID) id: string;
  @Field() label: string;
  @Field(() => UserModel, { description: 'The user the token authenticates as.' }) owner: UserModel;
  @Field(() => UserModel, {
    nullable: true,
    description: 'Who created it through the API; null when the command line (or the demo seed) did.',
  })
  createdBy: UserModel | null;
  @Field() createdAt: Date;
  @Field(() => Date, { nullable: true, description: 'Recorded at most once a minute.' })
  lastUsedAt: Date | null;
  @Field(() => Date, { nullable: true, description: 'Null: never expires.' }) expiresAt: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt: Date | null;
}
