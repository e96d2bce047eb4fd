import { Field, ID, ObjectType, registerEnumType } from '@nestjs/graphql';

export enum GrantEnum {
  AGENT_APPROVE = 'AGENT_APPROVE',
  CHAT = 'CHAT',
}
registerEnumType(GrantEnum, { name: 'Grant' });

@ObjectType('Group')
export class GroupModel {
  @Field(() => ID) id: string;
  @Field() name: string;
  @Field(() => [GrantEnum]) grants: GrantEnum[];
}

@ObjectType('User')
export class UserModel {
  @Field(() => ID) id: string;
  @Field() username: string;
  @Field() displayName: string;
  @Field({ description: '"en", "de", ...; used to render notices' }) locale: string;
  @Field() isAdmin: boolean;
  @Field(() => [GroupModel]) groups: GroupModel[];
}

@ObjectType('Viewer')
export class ViewerModel {
  @Field(() => UserModel) user: UserModel;
  @Field(() => [GrantEnum]) grants: GrantEnum[];
  @Field() mayDecideApprovals: boolean;
}
