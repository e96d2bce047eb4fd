import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { RunEntity } from './run.entity';

/** One event of a run's log; `(run_id, sequence)` is unique and gap-free. */
@Entity({ name: 'run_step' })
export class RunStepEntity {
  @PrimaryColumn({ name: 'run_id', type: 'uuid' })
  runId: string;

  @PrimaryColumn({ type: 'int' })
  sequence: number;

  @ManyToOne(() => RunEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'run_id' })
  run?: RunEntity;

  @Column({ type: 'varchar', length: 16 })
  kind: string;

  @Column({ type: 'int' })
  round: number;

  @Column({ name: 'duration_ms', type: 'int', default: 0 })
  durationMs: number;

  /** Privacy-filtered by the configuration's level before it is stored. */
  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
