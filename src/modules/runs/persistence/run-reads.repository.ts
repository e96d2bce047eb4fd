import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { EntityColumns } from '../../../platform/database/entity-columns';
import type { JoinedRead } from '../../../platform/database/joined-read';
import { returnedRows } from '../../../platform/database/query-results';
import { managerOf } from '../../../platform/database/transaction-runner';
import type { RunView } from '../core/run-view';
import { RunStepEntity } from './run-step.entity';
import { RunEntity } from './run.entity';

/** What a progress stream needs of a run: who owns it (the access check) and its counts. */
export interface RunProgressRow {
  readonly ownerId: number;
  readonly stepCount: number;
  readonly status: string;
  readonly turn: number;
}

/** Rows of other modules read with a run (`findByIdsWith`), joined on the run's keys. */
export interface RunJoins<C, P> {
  /** Joined on `configuration_id`. */
  readonly configuration: JoinedRead<C>;
  /**
   * Joined on `subject_page_id`, null for a run without a subject page (the joined read may
   * resolve that to the page the run is about all the same).
   */
  readonly page: JoinedRead<P>;
}

/** A run and what its joins found (null where a join found no row). */
export interface RunWithJoined<C, P> {
  readonly run: RunView;
  readonly configuration: C | null;
  readonly page: P | null;
}

/** Reads of runs and their steps: by id, the lists, the inbox's waiting runs. */
@Injectable()
export class RunReadsRepository {
  private readonly columns: EntityColumns<RunView>;

  constructor(private readonly dataSource: DataSource) {
    this.columns = new EntityColumns<RunView>(dataSource, RunEntity, 'r');
  }

  /** The transaction in progress (TransactionRunner), else the pool. */
  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  /** A run by id, every column (the sealed checkpoint included). */
  async findById(id: string): Promise<RunView | null> {
    const rows: unknown = await this.m().query(`SELECT ${this.columns.sql()} FROM run r WHERE r.id = $1`, [
      id,
    ]);
    return this.columns.rows(rows)[0] ?? null;
  }

  /**
   * Runs by id, every column, each with the rows `joins` read of other tables in the same
   * statement; unknown ids are absent. why: one id goes as `= $1`, whose plan stays generic;
   * `= ANY($1)` is planned afresh every time, so only several ids pay that.
   */
  async findByIdsWith<C, P>(
    ids: readonly string[],
    joins: RunJoins<C, P>,
  ): Promise<Array<RunWithJoined<C, P>>> {
    if (ids.length === 0) return [];
    const configuration = joins.configuration.sql('jc', 'r.configuration_id');
    const page = joins.page.sql('jp', 'r.subject_page_id');
    const [where, key] = ids.length === 1 ? ['r.id = $1', ids[0]] : ['r.id = ANY($1::uuid[])', [...ids]];
    const rows: unknown = await this.m().query(
      `SELECT ${this.columns.sql()}, ${configuration.columns}, ${page.columns}
         FROM run r ${configuration.join} ${page.join} WHERE ${where}`,
      [key],
    );
    const raws = returnedRows<Record<string, unknown>>(rows);
    return this.columns.rows(rows).map((run, i) => ({
      run,
      configuration: joins.configuration.read(raws[i]!, 'jc'),
      page: joins.page.read(raws[i]!, 'jp'),
    }));
  }

  /**
   * The four columns a progress stream reads, without hydrating the entity: a subscriber's
   * snapshot read twice per stream opened (about 70 KB of query building and entity mapping
   * each through TypeORM, the sealed checkpoint included) was most of what opening a
   * subscription allocated (bench M1).
   */
  async findProgress(id: string): Promise<RunProgressRow | null> {
    const rows: RunProgressRow[] = await this.m().query(
      `SELECT owner_id AS "ownerId", step_count AS "stepCount", status, turn FROM run WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async findByIds(ids: readonly string[]): Promise<RunEntity[]> {
    if (ids.length === 0) return [];
    return this.m().createQueryBuilder(RunEntity, 'r').where('r.id IN (:...ids)', { ids }).getMany();
  }

  async listSteps(runId: string, afterSequence: number, limit: number): Promise<RunStepEntity[]> {
    return this.m()
      .createQueryBuilder(RunStepEntity, 's')
      .where('s.run_id = :runId AND s.sequence > :after', { runId, after: afterSequence })
      .orderBy('s.sequence', 'ASC')
      .limit(limit)
      .getMany();
  }

  /**
   * Whether the APPROVAL / INPUT step of a run's decision on `turn` is recorded (a run cut off
   * right after its worker claimed a recorded decision may lack it).
   */
  async decisionStepRecorded(runId: string, turn: number): Promise<boolean> {
    const rows: unknown[] = await this.m().query(
      `SELECT 1 FROM run_step WHERE run_id = $1 AND kind IN ('APPROVAL', 'INPUT')
          AND (payload->>'turn')::int = $2 LIMIT 1`,
      [runId, turn],
    );
    return rows.length > 0;
  }
}
