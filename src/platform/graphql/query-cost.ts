import type { ApolloServerPlugin } from '@apollo/server';
import {
  DocumentNode,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  GraphQLField,
  GraphQLSchema,
  isNonNullType,
  isScalarType,
  Kind,
  OperationDefinitionNode,
  TypeNode,
} from 'graphql';
import { ComplexityEstimator, getComplexity } from 'graphql-query-complexity';

/** The argument that sets how many items a paginated field returns (`runs(first:)`, `steps(first:)`). */
export const PAGE_SIZE_ARGUMENT = 'first';

/**
 * The largest page any field serves (`Run.steps`: 500; `runs`: 200). A larger `first` is cut to
 * it by the server, so it costs no more than this; without the cut, a harmless
 * `runs(first: 1000000) { totalCount }` would look enormous.
 */
export const MAX_PAGE_SIZE = 500;

/** Where a page-size argument has no schema default (none does today): what it returns then. */
export const DEFAULT_PAGE_SIZE = 100;

/** The most fields an operation may expand to before its cost is not worked out at all. */
const MAX_QUERY_NODES = 10_000;

function pageSizeArgument(field: GraphQLField<unknown, unknown>) {
  const arg = field.args.find((a) => a.name === PAGE_SIZE_ARGUMENT);
  if (!arg) return null;
  const type = isNonNullType(arg.type) ? arg.type.ofType : arg.type;
  return isScalarType(type) && type.name === 'Int' ? arg : null;
}

/**
 * Every field costs 1; a paginated field (one with an Int `first`) costs 1 plus its selection
 * times the page it returns: `first` as the operation says it (a literal or a variable), else
 * the schema's default for it, within [0, MAX_PAGE_SIZE]. So nested pages multiply
 * (`runs { nodes { steps { nodes { payload } } } }` costs 50 × 100 × 2), and leaving `first`
 * out or hiding it in a variable costs what the server will actually return.
 *
 * Lists without a page-size argument count once: their length is bounded by data (a user's
 * sites, groups, a page's children), not by anything the client can ask for.
 */
export const pageAwareEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  const arg = pageSizeArgument(field);
  if (!arg) return 1 + childComplexity;
  const requested = args[PAGE_SIZE_ARGUMENT] as unknown;
  const fallback = typeof arg.defaultValue === 'number' ? arg.defaultValue : DEFAULT_PAGE_SIZE;
  const size = typeof requested === 'number' ? requested : fallback;
  return 1 + Math.min(Math.max(size, 0), MAX_PAGE_SIZE) * childComplexity;
};

const refusal = (message: string): GraphQLError =>
  new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });

const namedType = (type: TypeNode): string =>
  type.kind === Kind.NAMED_TYPE ? type.name.value : namedType(type.type);

/**
 * Whether variables can change the operation's cost: only through an Int (a page size, `first`)
 * or a Boolean (`@include` / `@skip`). An operation without such variables costs the same
 * whatever they are (`runProgress(runId: $runId)`).
 */
const costVaries = (operation: OperationDefinitionNode): boolean =>
  (operation.variableDefinitions ?? []).some((v) => ['Int', 'Boolean'].includes(namedType(v.type)));

/**
 * Costs of operations whose variables cannot change them, by operation (the transports reuse one
 * parsed document per operation text, so a document's operations are the same objects each time)
 * and schema: every subscriber opening the same stream would otherwise walk the same document
 * again (bench M1), and every request would coerce its variables twice.
 */
const fixedCosts = new WeakMap<OperationDefinitionNode, WeakMap<GraphQLSchema, number>>();

function costOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): number {
  const fixed = !costVaries(operation);
  const cost = getComplexity({
    schema,
    query: document,
    variables,
    operationName: operation.name?.value,
    estimators: [pageAwareEstimator],
    maxQueryNodes: MAX_QUERY_NODES,
  });
  if (fixed) {
    let bySchema = fixedCosts.get(operation);
    if (!bySchema) fixedCosts.set(operation, (bySchema = new WeakMap<GraphQLSchema, number>()));
    bySchema.set(schema, cost);
  }
  return cost;
}

/** The cost with these variables; null where they do not coerce, the refusal where it cannot be worked out. */
function costWithVariables(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | null | undefined,
): number | GraphQLError | null {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return null;
  try {
    return costOf(schema, document, operation, variables ?? {});
  } catch (e) {
    return refusal(e instanceof Error ? e.message : 'The operation is too large to run');
  }
}

/**
 * The cost of the operation that will run, with its variables and the schema's defaults, or
 * the error to refuse it with (BAD_USER_INPUT) when it is above `maxCost`. Null where it may
 * run. Variables that do not coerce are left to execution, which refuses them before any
 * resolver runs (with the message naming the variable).
 */
export function operationCostError(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | null | undefined,
  operationName: string | null | undefined,
  maxCost: number,
): GraphQLError | null {
  const operation = getOperationAST(document, operationName ?? undefined);
  if (!operation) return null;
  // why: an operation whose variables cannot change its cost was costed when it first came; its
  // variables are coerced once, by the execution that follows, not twice.
  const cost =
    fixedCosts.get(operation)?.get(schema) ?? costWithVariables(schema, document, operation, variables);
  if (cost instanceof GraphQLError) return cost;
  if (cost === null || cost <= maxCost) return null;
  return refusal(
    `Query cost limit of ${maxCost} exceeded, found ${cost}: ask for smaller pages (first) ` +
      'or fewer nested lists',
  );
}

/**
 * The cost limit over HTTP, once Apollo knows the operation and its variables (graphql-armor's
 * cost rule runs at validation, before variables exist, so it cannot see a page size passed as
 * a variable or left to its default). Refuses with BAD_USER_INPUT (400) before anything runs.
 */
export function queryCostLimit(maxCost: number): ApolloServerPlugin {
  return {
    requestDidStart: () =>
      Promise.resolve({
        didResolveOperation({ schema, document, request, operationName }) {
          const error = operationCostError(schema, document, request.variables, operationName, maxCost);
          if (error) throw error;
          return Promise.resolve();
        },
      }),
  };
}
