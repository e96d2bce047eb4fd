import { Injectable, Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager } from 'typeorm';

/** A unit of work inside one transaction; effects queued with `afterCommit` run only on commit. */
export interface Tx {
  readonly manager: EntityManager;
  afterCommit(effect: () => void | Promise<void>): void;
}

/** The transaction the current async call chain runs in, if any (one per `TransactionRunner.run`). */
const ambient = new AsyncLocalStorage<Tx>();

/**
 * The manager a repository of `dataSource` works with: the transaction in progress in this call
 * chain, else the pool. why: the transaction is carried, not threaded through every call, so a
 * repository call inside `TransactionRunner.run` cannot run outside it by a forgotten argument.
 */
export function managerOf(dataSource: DataSource): EntityManager {
  const tx = ambient.getStore();
  return tx && tx.manager.connection === dataSource ? tx.manager : dataSource.manager;
}

/**
 * Opens transactions for the application services (the only place that does). Inside `run`,
 * every repository of the same data source works in that transaction (`managerOf`), and a
 * nested `run` joins it. Effects queued with `afterCommit` (events, notices) run after the
 * commit, and are dropped on rollback.
 */
@Injectable()
export class TransactionRunner {
  private readonly logger = new Logger(TransactionRunner.name);

  constructor(private readonly dataSource: DataSource) {}

  async run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const outer = ambient.getStore();
    if (outer && outer.manager.connection === this.dataSource) return work(outer);
    const effects: Array<() => void | Promise<void>> = [];
    const result = await this.dataSource.transaction((manager) => {
      const tx: Tx = { manager, afterCommit: (effect) => effects.push(effect) };
      return ambient.run(tx, () => work(tx));
    });
    await this.runEffects(effects);
    return result;
  }

  /**
   * `run` for work whose only write is one statement, which is atomic on its own: it joins the
   * transaction in progress, else sends its statements in autocommit, and runs the effects queued
   * with `afterCommit` once it returns (none when it throws). why: a transaction around a single
   * write costs two round trips (START, COMMIT) and holds its locks for both.
   */
  async runOneWrite<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const outer = ambient.getStore();
    if (outer && outer.manager.connection === this.dataSource) return work(outer);
    const effects: Array<() => void | Promise<void>> = [];
    const result = await work({ manager: this.dataSource.manager, afterCommit: (e) => effects.push(e) });
    await this.runEffects(effects);
    return result;
  }

  /**
   * Runs effects of a committed write one after the other, each failure logged and not thrown:
   * a transaction's `afterCommit` effects, or those a caller collected around one statement that
   * committed on its own.
   */
  async runEffects(effects: ReadonlyArray<() => void | Promise<void>>): Promise<void> {
    // why: outside the transaction's context, so what an effect starts (a continuation, a
    // publish) never reaches for the finished transaction's connection.
    await ambient.exit(async () => {
      for (const effect of effects) {
        try {
          await effect();
        } catch (e) {
          this.logger.error(`after-commit effect failed: ${(e as Error).message}`);
        }
      }
    });
  }

  /**
   * Runs `effect` after the commit of the transaction this call chain runs in (dropped on its
   * rollback), or at once outside any transaction. For code that may run either way (an
   * observer of writes that are sometimes part of a larger unit of work).
   */
  afterCommit(effect: () => void | Promise<void>): void {
    const tx = ambient.getStore();
    if (tx && tx.manager.connection === this.dataSource) {
      tx.afterCommit(effect);
      return;
    }
    void (async () => effect())().catch((e: Error) =>
      this.logger.error(`after-commit effect failed: ${e.message}`),
    );
  }

  get manager(): EntityManager {
    return managerOf(this.dataSource);
  }

  /** Whether this call chain runs inside a transaction of this data source (`run`). */
  get inTransaction(): boolean {
    return ambient.getStore()?.manager.connection === this.dataSource;
  }
}
