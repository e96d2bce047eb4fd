import { Field, ID, InputType, ObjectType } from '@nestjs/graphql';
import { IsBoolean, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { GroupModel } from './user.model';

@ObjectType('IdentityGroupMapping', {
  description: "A value of the identity provider's groups claim, mapped to a group (and maybe admin rights)",
})
export class IdentityGroupMappingModel {
  @Field(() => ID) id: string;
  @Field({ description: 'The value as it appears in the groups claim (OIDC_GROUPS_CLAIM)' })
  claimValue: string;
  @Field(() => GroupModel) group: GroupModel;
  @Field({ description: 'Users with this value are admins: the only way a token grants admin rights' })
  grantsAdmin: boolean;
  @Field() createdAt: Date;
}

@InputType('CreateIdentityGroupMappingInput')
export class CreateIdentityGroupMappingInput {
  @Field()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  claimValue: string;

  @Field(() => ID)
  @IsString()
  @MaxLength(64)
  @Matches(/^\d+$/)
  groupId: string;

  @Field(() => Boolean, { nullable: true, defaultValue: false })
  @IsOptional()
  @IsBoolean()
  grantsAdmin?: boolean | null;
}
