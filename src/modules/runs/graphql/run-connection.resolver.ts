import { Int, Parent, ResolveField, Resolver } from '@nestjs/graphql';
import { RunLists } from '../application/run-lists';
import { RunConnectionModel } from './run.model';

@Resolver(() => RunConnectionModel)
export class RunConnectionResolver {
  constructor(private readonly lists: RunLists) {}

  @ResolveField(() => Int, {
    description:
      'How many runs the list holds. Counted only when asked for, and it grows with the list: leave it out of pages you fetch often.',
  })
  async totalCount(@Parent() connection: RunConnectionModel): Promise<number> {
    return this.lists.count(connection.page);
  }
}
