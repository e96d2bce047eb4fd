import { badInput } from '../../../common/refusal';

/** The longest message a user may send. */
export const MAX_MESSAGE_LENGTH = 20_000;
/** The longest conversation title. */
export const MAX_TITLE_LENGTH = 200;

/** Text a user sends: not blank, no NUL, at most MAX_MESSAGE_LENGTH characters. */
export function cleanMessage(text: string): string {
  if (typeof text !== 'string' || text.trim() === '')
    throw badInput('The message is empty', { field: 'text' });
  if (text.includes('\u0000')) throw badInput('The message contains a NUL character', { field: 'text' });
  if (text.length > MAX_MESSAGE_LENGTH) {
    throw badInput(`The message is longer than ${MAX_MESSAGE_LENGTH} characters`, { field: 'text' });
  }
  return text;
}

/** A title a user gives: null when blank, no NUL, at most MAX_TITLE_LENGTH characters. */
export function cleanTitle(title: string | null | undefined): string | null {
  if (title === null || title === undefined || title.trim() === '') return null;
  if (title.includes('\u0000')) throw badInput('The title contains a NUL character', { field: 'title' });
  if (title.length > MAX_TITLE_LENGTH) {
    throw badInput(`The title is longer than ${MAX_TITLE_LENGTH} characters`, { field: 'title' });
  }
  return title.trim();
}

/** The client module a view names: null when blank, no NUL, at most 100 characters. */
export function cleanModule(module: string): string | null {
  if (module.trim() === '') return null;
  if (module.includes('\u0000') || module.length > 100) {
    throw badInput('The module must be at most 100 characters without NUL', { field: 'module' });
  }
  return module;
}

/** What a turn is about: the page, its language and the client module the user was in. */
export interface ViewContext {
  readonly pageId: number | null;
  readonly languageId: number | null;
  readonly module: string | null;
}

/** The view a conversation was last in. */
export function viewOf(c: {
  readonly viewPageId: number | null;
  readonly viewLanguageId: number | null;
  readonly viewModule: string | null;
}): ViewContext {
  return { pageId: c.viewPageId, languageId: c.viewLanguageId, module: c.viewModule };
}
