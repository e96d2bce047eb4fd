import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import { GqlContext } from './access.guard';
import { RequestContext } from './request-context';

/** Injects the operation's `RequestContext` into a resolver method. */
export const Ctx = createParamDecorator((_data: unknown, context: ExecutionContext): RequestContext => {
  return GqlExecutionContext.create(context).getContext<GqlContext>().ctx;
});
