import type { DataSource } from 'typeorm';
import { TransactionRunner } from '../../../src/platform/database/transaction-runner';
import { connect, createFreshDatabase, type FreshDatabase } from './house-support';

/**
 * The one transaction mechanism (src/platform/database/transaction-runner.ts): repositories
 * join the transaction of their call chain, and effects queued for after the commit run only
 * once it committed, never after a rollback.
 */
describe('TransactionRunner', () => {
  let db: FreshDatabase;
  let ds: DataSource;
  let transactions: TransactionRunner;

  beforeAll(async () => {
    db = await createFreshDatabase();
    ds = await connect(db.target);
    await ds.query(`CREATE TABLE item (id int PRIMARY KEY)`);
    transactions = new TransactionRunner(ds);
  });
  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.dispose();
  });

  const count = async (): Promise<number> =>
    Number((await ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM item`))[0]!.n);

  it('runs what `afterCommit` queued inside a transaction once it committed, and never after a rollback', async () => {
    const ran: string[] = [];
    await transactions.run(async () => {
      await transactions.manager.query(`INSERT INTO item VALUES (1)`);
      transactions.afterCommit(() => {
        ran.push(`committed, rows visible: ${transactions.inTransaction ? 'inside' : 'outside'}`);
      });
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['committed, rows visible: outside']);
    await expect(
      transactions.run(async () => {
        await transactions.manager.query(`INSERT INTO item VALUES (2)`);
        transactions.afterCommit(() => {
          ran.push('after a rollback');
        });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(ran).toEqual(['committed, rows visible: outside']);
    expect(await count()).toBe(1);
  });

  it('runs an `afterCommit` effect at once outside any transaction, a nested run joining the outer one', async () => {
    const ran: string[] = [];
    transactions.afterCommit(() => {
      ran.push('outside');
    });
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual(['outside']);
    await expect(
      transactions.run(async () => {
        await transactions.run(async () => {
          await transactions.manager.query(`INSERT INTO item VALUES (3)`);
          transactions.afterCommit(() => {
            ran.push('nested, after a rollback');
          });
        });
        throw new Error('the outer one rolls back');
      }),
    ).rejects.toThrow('the outer one rolls back');
    expect(ran).toEqual(['outside']);
    expect(await count()).toBe(1);
  });

  it('runOneWrite: one write in autocommit with its effects after it; inside a transaction it joins it', async () => {
    const ran: string[] = [];
    const visible = await transactions.runOneWrite(async (tx) => {
      expect(transactions.inTransaction).toBe(false);
      await tx.manager.query(`INSERT INTO item VALUES (10)`);
      tx.afterCommit(() => {
        ran.push('after the statement');
      });
      expect(ran).toEqual([]);
      // why: no transaction holds it: another connection sees the row before the work returns
      return Number((await ds.query(`SELECT count(*)::int AS n FROM item WHERE id = 10`))[0].n);
    });
    expect(visible).toBe(1);
    expect(ran).toEqual(['after the statement']);
    await expect(
      transactions.runOneWrite(async (tx) => {
        await tx.manager.query(`INSERT INTO item VALUES (10)`);
        tx.afterCommit(() => {
          ran.push('after a failed statement');
        });
      }),
    ).rejects.toThrow();
    expect(ran).toEqual(['after the statement']);
    await expect(
      transactions.run(async () => {
        await transactions.runOneWrite(async (tx) => {
          expect(transactions.inTransaction).toBe(true);
          await tx.manager.query(`INSERT INTO item VALUES (11)`);
          tx.afterCommit(() => {
            ran.push('joined, after a rollback');
          });
        });
        throw new Error('the outer one rolls back');
      }),
    ).rejects.toThrow('the outer one rolls back');
    expect(ran).toEqual(['after the statement']);
    expect(Number((await ds.query(`SELECT count(*)::int AS n FROM item WHERE id = 11`))[0].n)).toBe(0);
  });
});
