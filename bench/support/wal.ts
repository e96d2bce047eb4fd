import type { Client } from 'pg';
import { rawClient } from './pg';

/** WAL written between two points, cluster-wide and, where pg_walinspect is there, per database. */
export interface WalSpan {
  /** pg_wal_lsn_diff(after, before): everything the server logged meanwhile, all databases. */
  readonly clusterBytes: number;
  /** Bytes of the records of this database (block refs in it, or its transactions); null without pg_walinspect. */
  readonly databaseBytes: number | null;
  /** Per transaction id of this database: bytes of its records (heap, index, commit). */
  readonly byXid: ReadonlyMap<number, number>;
  /** Records of this database without a transaction id (page pruning, visibility). */
  readonly withoutXidBytes: number;
  /** Full-page images inside `databaseBytes` (the first change of a page after a checkpoint). */
  readonly fpiBytes: number;
  /** `databaseBytes` by relation (index or table name; `commit` for commit records). */
  readonly byRelation: Readonly<Record<string, number>>;
  /** Why the records could not be read back (then only `clusterBytes` holds). */
  readonly inspectError?: string;
}

/** One group of WAL records as the attribution query returns them. */
export interface WalRecordGroup {
  xid: string;
  rm: string;
  rel: string | null;
  in_db: boolean;
  mine: boolean;
  bytes: string;
  fpi: string;
}

// why: a record's footprint is the distance to the next record's start (alignment and page
// headers included), so the footprints add up to pg_wal_lsn_diff over the same range.
const ATTRIBUTE = `
WITH r AS (
  SELECT start_lsn, end_lsn, xid::text::bigint AS xid, resource_manager AS rm, fpi_length,
         substring(block_ref from 'rel [0-9]+/([0-9]+)/[0-9]+')::bigint AS db,
         substring(block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)')::oid AS relfilenode
    FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
), f AS (
  SELECT r.*, pg_wal_lsn_diff(COALESCE(lead(start_lsn) OVER (ORDER BY start_lsn), end_lsn), start_lsn) AS footprint
    FROM r
), mine AS (SELECT DISTINCT xid FROM f WHERE db = $3 AND xid <> 0)
SELECT f.xid::text AS xid, f.rm,
       CASE WHEN f.db = $3 THEN COALESCE(pg_filenode_relation(0, f.relfilenode)::regclass::text, f.relfilenode::text) END AS rel,
       COALESCE(f.db = $3, false) AS in_db, f.xid IN (SELECT xid FROM mine) AS mine,
       sum(f.footprint)::text AS bytes, sum(f.fpi_length)::text AS fpi
  FROM f
 GROUP BY 1, 2, 3, 4, 5`;

/**
 * Measures WAL around a piece of work on one database. The LSN is cluster-wide, so other
 * databases on a shared server add to `clusterBytes`; with pg_walinspect (PostgreSQL 15+,
 * superuser) the records are read back and attributed to this database by their block
 * references and transaction ids, which removes that noise.
 */
export class WalProbe {
  /** The temporary replication slot holding the WAL back (null: none could be made). */
  private slot: string | null = null;

  private constructor(
    private readonly client: Client,
    private readonly dbOid: number,
    /** False: pg_walinspect is unavailable; only cluster-wide figures. */
    readonly inspects: boolean,
  ) {}

  /**
   * Connects to the bench database and installs pg_walinspect there when it can. A temporary
   * physical replication slot (dropped with this session) keeps the WAL of a measurement from
   * being recycled by a checkpoint before it is read back: other databases on a shared server
   * checkpoint often (DROP DATABASE forces one).
   */
  static async open(url: string, dbOid: number): Promise<WalProbe> {
    const client = await rawClient(url, 'countersign-bench-wal');
    let inspects = true;
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    } catch {
      inspects = false;
    }
    const probe = new WalProbe(client, dbOid, inspects);
    if (inspects) await probe.reserve();
    return probe;
  }

  private async reserve(): Promise<void> {
    const name = `bench_wal_${process.pid}_${this.dbOid}`;
    try {
      await this.client.query('SELECT pg_create_physical_replication_slot($1, true, true)', [name]);
      this.slot = name;
    } catch {
      this.slot = null;
    }
  }

  /** Whether a replication slot keeps the measured WAL from being recycled. */
  get retainsWal(): boolean {
    return this.slot !== null;
  }

  /** The current insert position; moves the slot up to it so older WAL may go. */
  async lsn(): Promise<string> {
    const r = await this.client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    const lsn = r.rows[0]!.lsn;
    if (this.slot) {
      await this.client
        .query('SELECT pg_replication_slot_advance($1, $2::pg_lsn)', [this.slot, lsn])
        .catch(() => undefined);
    }
    return lsn;
  }

  /** Runs `work` between two LSN readings and attributes what was logged meanwhile. */
  async around<T>(work: () => Promise<T>): Promise<{ value: T; wal: WalSpan }> {
    const before = await this.lsn();
    const value = await work();
    return { value, wal: await this.since(before) };
  }

  /** WAL since an earlier `lsn()` reading. */
  async since(before: string): Promise<WalSpan> {
    const now = await this.client.query<{ insert: string; flush: string; diff: string }>(
      `SELECT pg_current_wal_lsn()::text AS insert, pg_current_wal_flush_lsn()::text AS flush,
              pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::text AS diff`,
      [before],
    );
    const { flush, diff } = now.rows[0]!;
    const clusterBytes = Number(diff);
    if (!this.inspects) {
      return {
        clusterBytes,
        databaseBytes: null,
        byXid: new Map(),
        withoutXidBytes: 0,
        fpiBytes: 0,
        byRelation: {},
      };
    }
    try {
      const rows = await this.client.query<WalRecordGroup>(ATTRIBUTE, [before, flush, this.dbOid]);
      return attribute(clusterBytes, rows.rows);
    } catch (e) {
      // why: without the slot a checkpoint may have recycled the segment; the span still
      // has its cluster-wide size, and the caller reports the sample as unattributed.
      const inspectError = e instanceof Error ? e.message : String(e);
      return {
        clusterBytes,
        databaseBytes: null,
        byXid: new Map(),
        withoutXidBytes: 0,
        fpiBytes: 0,
        byRelation: {},
        inspectError,
      };
    }
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** Adds up the record groups of this database (its blocks, or its transactions' records). */
export function attribute(clusterBytes: number, rows: readonly WalRecordGroup[]): WalSpan {
  const byXid = new Map<number, number>();
  const byRelation: Record<string, number> = {};
  let databaseBytes = 0;
  let withoutXidBytes = 0;
  let fpiBytes = 0;
  for (const row of rows) {
    if (!row.in_db && !row.mine) continue;
    const bytes = Number(row.bytes);
    const xid = Number(row.xid);
    databaseBytes += bytes;
    fpiBytes += Number(row.fpi);
    if (xid === 0) withoutXidBytes += bytes;
    else byXid.set(xid, (byXid.get(xid) ?? 0) + bytes);
    const key = row.rel ?? (row.rm === 'Transaction' ? 'commit' : row.rm.toLowerCase());
    byRelation[key] = (byRelation[key] ?? 0) + bytes;
  }
  return { clusterBytes, databaseBytes, byXid, withoutXidBytes, fpiBytes, byRelation };
}
