import { BREAK, DocumentNode, GraphQLError, visit } from 'graphql';

const NUL = '\u0000';

/**
 * Whether a document has a string literal with a NUL, by document: the transports reuse one
 * parsed document for every operation with the same text (ws-operations.ts, Apollo's document
 * store), so a subscriber opening a known operation does not walk its syntax tree again.
 */
const literalNul = new WeakMap<DocumentNode, boolean>();

function hasNulLiteral(document: DocumentNode): boolean {
  let known = literalNul.get(document);
  if (known === undefined) {
    known = false;
    visit(document, {
      StringValue(node) {
        if (!node.value.includes(NUL)) return undefined;
        known = true;
        return BREAK;
      },
    });
    literalNul.set(document, known);
  }
  return known;
}

/**
 * Where an operation's input carries a NUL character (U+0000): a string literal of the document,
 * or a variable (its strings and object keys at any depth, JSON values included). Null where it
 * carries none. PostgreSQL stores no NUL in text or jsonb, so such input can only fail later, as
 * a fault; refusing it up front keeps it a client error (BAD_USER_INPUT).
 */
export function nulByteIn(document: DocumentNode | null | undefined, variables: unknown): string | null {
  if (document && hasNulLiteral(document)) return 'a string literal';
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
