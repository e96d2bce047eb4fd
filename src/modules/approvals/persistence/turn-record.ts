import { Column, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

/**
 * What every record of a person's say on one turn of a run has: its id, the run (rows go with
 * it), the turn, the digest it was given on, the path it asked for, the client's idempotency key
 * and the fingerprint that tells a reused key apart.
 */
export abstract class TurnRecord {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'run_id', type: 'uuid' })
  runId: string;

  // why by the table's name: the run is the runs module's, whose entities stay inside it; the
  // foreign key (and its cascade) is the database's, not a dependency between the modules' code.
  @ManyToOne('run', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'run_id' })
  run?: { id: string };

  @Column({ type: 'int' })
  turn: number;

  @Column({ name: 'turn_digest', type: 'char', length: 64 })
  turnDigest: string;

  /** INLINE, DURABLE: the path asked for (of a quorum's votes, the completing one's decides). */
  @Column({ type: 'varchar', length: 16 })
  path: string;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 200, nullable: true })
  idempotencyKey: string | null;

  /** SHA-256 of what was asked (kind, digest, reason, values), to tell a reused key apart. */
  @Column({ type: 'char', length: 64 })
  fingerprint: string;
}
