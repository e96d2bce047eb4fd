import type { Grant } from '../../../platform/auth/auth-user';
import { badInput } from '../../../common/refusal';

/** A group as the API shows it: name and grants (content permissions stay internal). */
export interface GroupView {
  readonly id: number;
  readonly name: string;
  readonly grants: readonly Grant[];
}

/**
 * A user as the API shows it. `AuthUser` (the authenticated caller) has this shape too, so
 * one mapper serves `viewer`, `users` and references such as `Run.owner`.
 */
export interface UserView {
  readonly id: number;
  readonly username: string;
  readonly displayName: string;
  readonly locale: string;
  readonly isAdmin: boolean;
  readonly groups: readonly GroupView[];
}

/** Lower-case letter first, then letters, digits, `.`, `_`, `-`; 2 to 64 characters. */
export const USERNAME_PATTERN = /^[a-z][a-z0-9._-]{1,63}$/;
export const USERNAME_MAX = 64;
export const DISPLAY_NAME_MAX = 200;
/** A language tag such as `en`, `de`, `pt-BR`. */
export const LOCALE_PATTERN = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;
export const LOCALE_MAX = 16;
export const DEFAULT_LOCALE = 'en';
export const GROUP_IDS_MAX = 100;
export const TOKEN_LABEL_MAX = 200;

export const USERNAME_RULE =
  'username must be 2-64 characters: a lower-case letter, then lower-case letters, digits, ".", "_" or "-"';
export const LOCALE_RULE = 'locale must be a language tag such as "en", "de" or "pt-BR"';

/** What `createUser` asks for, before normalisation (nulls mean "the default"). */
export interface NewUserRequest {
  readonly username: string;
  readonly displayName?: string | null;
  readonly locale?: string | null;
  readonly isAdmin?: boolean | null;
  readonly groupIds?: readonly number[] | null;
}

/** A validated new user: defaults applied, display name trimmed, group ids distinct. */
export interface NewUser {
  readonly username: string;
  readonly displayName: string;
  readonly locale: string;
  readonly isAdmin: boolean;
  readonly groupIds: readonly number[];
}

/**
 * Validates and normalises a new user. The GraphQL DTO checks the same limits first; this is
 * the authority for every caller (the CLI included).
 * Refuses with BAD_USER_INPUT (`details.field` names the field).
 */
export function normalizeNewUser(request: NewUserRequest): NewUser {
  if (!USERNAME_PATTERN.test(request.username)) throw badInput(USERNAME_RULE, { field: 'username' });
  const displayName = (request.displayName ?? request.username).trim();
  if (displayName.length === 0 || displayName.length > DISPLAY_NAME_MAX) {
    throw badInput(`displayName must be 1-${DISPLAY_NAME_MAX} characters`, { field: 'displayName' });
  }
  const locale = request.locale ?? DEFAULT_LOCALE;
  if (locale.length > LOCALE_MAX || !LOCALE_PATTERN.test(locale)) {
    throw badInput(LOCALE_RULE, { field: 'locale' });
  }
  const groupIds = [...new Set(request.groupIds ?? [])];
  if (groupIds.length > GROUP_IDS_MAX) {
    throw badInput(`groupIds may name at most ${GROUP_IDS_MAX} groups`, { field: 'groupIds' });
  }
  return { username: request.username, displayName, locale, isAdmin: request.isAdmin === true, groupIds };
}

/** A validated token request. */
export interface NewToken {
  readonly userId: number;
  readonly label: string;
  readonly expiresAt: Date | null;
}

/**
 * Validates a token request: a label of 1-200 characters (trimmed) and, when given, an expiry
 * in the future (a token born expired is a mistake, not a wish).
 * Refuses with BAD_USER_INPUT.
 */
export function normalizeNewToken(
  request: { userId: number; label: string; expiresAt?: Date | null },
  now: Date,
): NewToken {
  const label = request.label.trim();
  if (label.length === 0 || label.length > TOKEN_LABEL_MAX) {
    throw badInput(`label must be 1-${TOKEN_LABEL_MAX} characters`, { field: 'label' });
  }
  const expiresAt = request.expiresAt ?? null;
  if (expiresAt && !(expiresAt.getTime() > now.getTime())) {
    throw badInput('expiresAt must be in the future', { field: 'expiresAt' });
  }
  return { userId: request.userId, label, expiresAt };
}
