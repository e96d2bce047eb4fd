import { BREAK, DocumentNode, GraphQLError, visit } from 'graphql';

const NUL = '\u0000';

/**
 * Where an operation's input carries a NUL character (U+0000): a string literal of the document,
 * or a variable (its strings and object keys at any depth, JSON values included). Null where it
 * carries none. PostgreSQL stores no NUL in text or jsonb, so such input can only fail later, as
 * a fault; refusing it up front keeps it a client error (BAD_USER_INPUT).
 */
export function nulByteIn(document: DocumentNode | null | undefined, variables: unknown): string | null {
  let literal = false;
  if (document) {
    visit(document, {
      StringValue(node) {
        if (!node.value.includes(NUL)) return undefined;
        literal = true;
        return BREAK;
      },
    });
  }
  if (literal) return 'a string literal';
  if (typeof variables !== 'object' || variables === null) return null;
  // why: an explicit stack, not recursion: a variable may nest thousands of levels deep.
  const stack: Array<[unknown, string]> = Object.entries(variables).map(([name, value]) => [value, name]);
  while (stack.length > 0) {
    const [value, variable] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes(NUL)) return `variable $${variable}`;
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key.includes(NUL)) return `variable $${variable}`;
        stack.push([child, variable]);
      }
    }
  }
  return null;
}

/** The client error for input carrying a NUL character (HTTP 400, BAD_USER_INPUT). */
export function nulByteError(where: string): GraphQLError {
  return new GraphQLError(`Input may not contain NUL characters (U+0000): ${where}`, {
    extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
  });
}
