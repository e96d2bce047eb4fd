import { ArgsType, Field, ID, InputType } from '@nestjs/graphql';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDate,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import {
  DISPLAY_NAME_MAX,
  GROUP_IDS_MAX,
  LOCALE_MAX,
  LOCALE_PATTERN,
  LOCALE_RULE,
  TOKEN_LABEL_MAX,
  USERNAME_MAX,
  USERNAME_PATTERN,
  USERNAME_RULE,
} from '../core/identity';

/** The longest id string accepted before parsing (a UUID is 36 characters). */
const ID_MAX = 64;

@InputType('CreateUserInput')
export class CreateUserInput {
  @Field()
  @IsString()
  @MaxLength(USERNAME_MAX)
  @Matches(USERNAME_PATTERN, { message: USERNAME_RULE })
  username: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(DISPLAY_NAME_MAX)
  displayName?: string | null;

  @Field(() => String, { nullable: true, defaultValue: 'en' })
  @IsOptional()
  @IsString()
  @MaxLength(LOCALE_MAX)
  @Matches(LOCALE_PATTERN, { message: LOCALE_RULE })
  locale?: string | null;

  @Field(() => Boolean, { nullable: true, defaultValue: false })
  @IsOptional()
  @IsBoolean()
  isAdmin?: boolean | null;

  @Field(() => [ID], { nullable: true, defaultValue: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(GROUP_IDS_MAX)
  @IsString({ each: true })
  @MaxLength(ID_MAX, { each: true })
  groupIds?: string[] | null;
}

@ArgsType()
export class CreateApiTokenArgs {
  @Field(() => ID)
  @IsString()
  @MaxLength(ID_MAX)
  userId: string;

  @Field()
  @IsString()
  @MinLength(1)
  @MaxLength(TOKEN_LABEL_MAX)
  label: string;

  @Field(() => Date, {
    nullable: true,
    description: 'When the token stops working (must be in the future); null: never.',
  })
  @IsOptional()
  @IsDate()
  expiresAt?: Date | null;
}
