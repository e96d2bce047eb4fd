import {
  Column,
  Entity,
  Index,
  JoinColumn,
  JoinTable,
  ManyToMany,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { ConfigurationEntity } from './configuration.entity';

/**
 * A Task: what the chat uses for a user. Tasks are mapped to groups; the mapping with the
 * highest priority (then the lowest task id) among a user's groups wins.
 */
@Entity({ name: 'task' })
export class TaskEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100, unique: true })
  identifier: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Index()
  @Column({ name: 'configuration_id', type: 'int' })
  configurationId: number;

  @ManyToOne(() => ConfigurationEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'configuration_id' })
  configuration?: ConfigurationEntity;

  @Column({ type: 'int', default: 0 })
  priority: number;

  // Skills and groups are other modules' tables, named rather than imported.
  @ManyToMany('skill')
  @JoinTable({
    name: 'task_skill',
    joinColumn: { name: 'task_id', referencedColumnName: 'id' },
    inverseJoinColumn: { name: 'skill_id', referencedColumnName: 'id' },
  })
  skills?: Array<{ id: number }>;

  @ManyToMany('access_group')
  @JoinTable({
    name: 'task_group',
    joinColumn: { name: 'task_id', referencedColumnName: 'id' },
    inverseJoinColumn: { name: 'group_id', referencedColumnName: 'id' },
  })
  groups?: Array<{ id: number }>;
}
