import { Column, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { RunEntity } from '../../runs/persistence/run.entity';

/** What every record about one turn of a run has: its id, the run (rows go with it), the turn. */
export abstract class TurnRecord {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'run_id', type: 'uuid' })
  runId: string;

  @ManyToOne(() => RunEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'run_id' })
  run?: RunEntity;

  @Column({ type: 'int' })
  turn: number;
}
