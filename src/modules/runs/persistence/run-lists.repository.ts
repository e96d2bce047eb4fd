import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { managerOf } from '../../../platform/database/transaction-runner';
import { RunEntity } from './run.entity';

/** Where a page starts: the sort key of the last row the client saw (exact timestamp text). */
export interface RunPageKey {
  readonly at: string;
  readonly id: string;
}

/** A row of a page with the key a cursor after it encodes. */
export interface KeyedRun {
  readonly run: RunEntity;
  readonly key: RunPageKey;
}

export interface RunListFilter {
  readonly ownerId: number | null;
  readonly configurationId: number | null;
  readonly statuses: readonly string[] | null;
}

/**
 * `timestamptz` as exact text (microseconds, UTC): a cursor must compare exactly with the
 * stored value, and a JavaScript Date keeps only milliseconds.
 */
const exactText = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The growing lists of runs, paged by key (docs/pagination.md): every query is served by an
 * index in its sort order (`run_created_idx`, `run_owner_created_idx`, the partial
 * `run_waiting_idx` / `run_owner_waiting_idx`), so the first page and the thousandth cost
 * the same at any table size. The offset form stays for the deprecated `offset` argument.
 */
@Injectable()
export class RunListsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private m(): EntityManager {
    return managerOf(this.dataSource);
  }

  /** Runs newest first (`created_at DESC, id DESC`), `limit` of them after `after`. */
  async runs(
    filter: RunListFilter,
    limit: number,
    after: RunPageKey | null,
    offset = 0,
  ): Promise<KeyedRun[]> {
    const qb = this.filtered(filter).addSelect(exactText('r.created_at'), 'page_at');
    if (after) {
      qb.andWhere('(r.created_at, r.id) < (CAST(:at AS timestamptz), CAST(:id AS uuid))', after);
    }
    qb.orderBy('r.created_at', 'DESC').addOrderBy('r.id', 'DESC').offset(offset).limit(limit);
    return this.keyed(qb);
  }

  /** How many runs match (a count over the matching index range: it grows with the list). */
  async count(filter: RunListFilter): Promise<number> {
    return this.filtered(filter).getCount();
  }

  /**
   * Waiting runs, the longest wait first (`waiting_since, id`); `ownerId` null for every
   * owner. The waiting statuses are literals, not parameters, so that the planner can match
   * the partial indexes whose predicate names them.
   */
  async waiting(
    ownerId: number | null,
    limit: number,
    after: RunPageKey | null,
    offset = 0,
  ): Promise<KeyedRun[]> {
    const qb = this.m()
      .createQueryBuilder(RunEntity, 'r')
      .addSelect(exactText('r.waiting_since'), 'page_at')
      .where(`r.status IN ('WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT')`);
    if (ownerId !== null) qb.andWhere('r.owner_id = :ownerId', { ownerId });
    if (after) {
      qb.andWhere('(r.waiting_since, r.id) > (CAST(:at AS timestamptz), CAST(:id AS uuid))', after);
    }
    qb.orderBy('r.waiting_since', 'ASC').addOrderBy('r.id', 'ASC').offset(offset).limit(limit);
    return this.keyed(qb);
  }

  private filtered(filter: RunListFilter): SelectQueryBuilder<RunEntity> {
    const qb = this.m().createQueryBuilder(RunEntity, 'r');
    if (filter.ownerId !== null) qb.andWhere('r.owner_id = :ownerId', { ownerId: filter.ownerId });
    if (filter.configurationId !== null) {
      qb.andWhere('r.configuration_id = :configurationId', { configurationId: filter.configurationId });
    }
    if (filter.statuses && filter.statuses.length > 0) {
      qb.andWhere('r.status IN (:...statuses)', { statuses: filter.statuses });
    }
    return qb;
  }

  /** Entities with their exact sort timestamps (raw rows come back in the entities' order). */
  private async keyed(qb: SelectQueryBuilder<RunEntity>): Promise<KeyedRun[]> {
    const { entities, raw } = await qb.getRawAndEntities<{ r_id: string; page_at: string | null }>();
    const at = new Map(raw.map((row) => [row.r_id, row.page_at ?? '']));
    return entities.map((run) => ({ run, key: { at: at.get(run.id) ?? '', id: run.id } }));
  }
}
