import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/** A unit of work inside one transaction; effects queued with `afterCommit` run only on commit. */
export interface Tx {
  readonly manager: EntityManager;
  afterCommit(effect: () => void | Promise<void>): void;
}

/**
 * Opens transactions for the application services (the only place that does). Events and
 * other effects are queued on the unit of work and run after the commit, dropped on rollback.
 */
@Injectable()
export class TransactionRunner {
  private readonly logger = new Logger(TransactionRunner.name);

  constructor(private readonly dataSource: DataSource) {}

  async run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const effects: Array<() => void | Promise<void>> = [];
    const result = await this.dataSource.transaction((manager) =>
      work({ manager, afterCommit: (effect) => effects.push(effect) }),
    );
    for (const effect of effects) {
      try {
        await effect();
      } catch (e) {
        this.logger.error(`after-commit effect failed: ${(e as Error).message}`);
      }
    }
    return result;
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }
}
