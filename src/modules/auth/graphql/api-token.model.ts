import { Field, ID, ObjectType } from '@nestjs/graphql';

@ObjectType('ApiTokenCreated')
export class ApiTokenCreatedModel {
  @Field(() => ID) tokenId: string;
  @Field({ description: 'Shown once; only a hash is stored.' }) token: string;
}
