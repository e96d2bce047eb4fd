import {
  DocumentNode,
  ExecutionArgs,
  ExecutionResult,
  GraphQLError,
  GraphQLFormattedError,
  GraphQLSchema,
  parse,
  specifiedRules,
  validate,
  ValidationRule,
} from 'graphql';
import type { FormattedExecutionResult } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import { nulByteError, nulByteIn } from './nul-bytes';
import { operationCostError } from './query-cost';

/** The limits an operation must pass on every transport (docs/security.md). */
export interface OperationLimits {
  readonly maxTokens: number;
  /** Extra validation rules on top of graphql's specified rules (graphql-armor's). */
  readonly rules: readonly ValidationRule[];
  /** The cost limit with the operation's variables and the schema's defaults (query-cost.ts). */
  readonly maxCost: number;
}

/** The error with Apollo's code for its stage, as Apollo gives it over HTTP (format-error.ts). */
const coded = (e: unknown, code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED'): GraphQLError => {
  const error =
    e instanceof GraphQLError ? e : new GraphQLError(e instanceof Error ? e.message : 'Invalid operation');
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...error.extensions, code },
  });
};

/** Valid documents kept per schema and limits, by query text (oldest dropped first). */
const DOCUMENTS_KEPT = 500;
const documents = new WeakMap<GraphQLSchema, WeakMap<OperationLimits, Map<string, DocumentNode>>>();

/**
 * The documents already parsed and validated for this schema and these limits, by query text:
 * validation depends on nothing else, and every subscriber of the same operation shares one
 * document instead of keeping its own parse (its AST and lexer tokens, about 10 KB each).
 */
function validDocuments(schema: GraphQLSchema, limits: OperationLimits): Map<string, DocumentNode> {
  let bySchema = documents.get(schema);
  if (!bySchema)
    documents.set(schema, (bySchema = new WeakMap<OperationLimits, Map<string, DocumentNode>>()));
  let known = bySchema.get(limits);
  if (!known) bySchema.set(limits, (known = new Map<string, DocumentNode>()));
  return known;
}

function parseAndValidate(
  schema: GraphQLSchema,
  query: string,
  limits: OperationLimits,
): DocumentNode | GraphQLError[] {
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: limits.maxTokens });
  } catch (e) {
    return [coded(e, 'GRAPHQL_PARSE_FAILED')];
  }
  let errors: readonly GraphQLError[];
  try {
    errors = validate(schema, document, [...specifiedRules, ...limits.rules]);
  } catch (e) {
    // why: a rule configured to throw (rather than report) must still answer the client.
    return [coded(e, 'GRAPHQL_VALIDATION_FAILED')];
  }
  if (errors.length > 0) return errors.map((e) => coded(e, 'GRAPHQL_VALIDATION_FAILED'));
  return document;
}

/**
 * Parses and validates an operation that arrived over graphql-ws with the same limits as an
 * HTTP request: graphql-armor protects Apollo's HTTP pipeline only, so without this a
 * subscription could nest or alias without bound. Input carrying a NUL character is refused as
 * over HTTP, and so is one whose cost, with its variables, is above the limit. Returns the execution arguments, or the errors to send to the client (graphql-ws
 * sends them as an `error` message).
 */
export function prepareWsOperation(
  schema: GraphQLSchema,
  payload: SubscribePayload,
  limits: OperationLimits,
): ExecutionArgs | GraphQLError[] {
  const known = validDocuments(schema, limits);
  let document = known.get(payload.query);
  if (!document) {
    const checked = parseAndValidate(schema, payload.query, limits);
    if (Array.isArray(checked)) return checked;
    document = checked;
    if (known.size >= DOCUMENTS_KEPT) known.delete(known.keys().next().value!);
    known.set(payload.query, document);
  }
  const nul = nulByteIn(document, payload.variables);
  if (nul) return [nulByteError(nul)];
  const costly = operationCostError(
    schema,
    document,
    payload.variables,
    payload.operationName,
    limits.maxCost,
  );
  if (costly) return [costly];
  return {
    schema,
    document,
    variableValues: payload.variables ?? undefined,
    operationName: payload.operationName ?? undefined,
  };
}

export type FormatOne = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/** The `errors` of a graphql-ws result in the same shape Apollo gives over HTTP. */
export function formatWsResult(result: ExecutionResult, format: FormatOne): FormattedExecutionResult | void {
  if (!result.errors || result.errors.length === 0) return;
  return { ...result, errors: result.errors.map((e) => format(e.toJSON(), e)) };
}

/** graphql-ws `error` message payloads in the same shape Apollo gives over HTTP. */
export function formatWsErrors(errors: readonly GraphQLError[], format: FormatOne): GraphQLFormattedError[] {
  return errors.map((e) => format(e.toJSON(), e));
}
