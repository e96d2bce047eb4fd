export { AuthModule } from './auth.module';
export { generateToken, hashToken, parseBearer } from './core/token';
export type { GroupView, UserView } from './core/identity';
export { UsersService } from './application/users.service';
export { PrincipalsService } from './application/principals.service';
export { TokensService, type CreatedToken } from './application/tokens.service';
export { GrantEnum, GroupModel, UserModel, ViewerModel } from './graphql/user.model';
export { toGroupModel, toUserModel } from './graphql/user.mapper';
export { normalizeNewToken, normalizeNewUser, type NewUserRequest } from './core/identity';
