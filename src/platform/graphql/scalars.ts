import { GraphQLJSON } from 'graphql-type-json';

/** The JSON scalar: use as `@Field(() => GraphQLJSON)`. DateTime is Nest's ISO date scalar. */
export { GraphQLJSON };
