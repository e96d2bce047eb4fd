import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { SkillEntity } from './skill.entity';

/**
 * One version of a skill's guidance (docs/chat-and-skills.md "Skill versions"): written by an
 * edit as a DRAFT, used by runs once APPROVED by another admin, never used again once WITHDRAWN.
 */
@Entity({ name: 'skill_version' })
@Index('skill_version_number_uq', ['skillId', 'version'], { unique: true })
export class SkillVersionEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'skill_id', type: 'int' })
  skillId: number;

  @ManyToOne(() => SkillEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'skill_id' })
  skill?: SkillEntity;

  @Column({ type: 'int' })
  version: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ type: 'text' })
  body: string;

  @Column({ name: 'is_process', type: 'boolean', default: false })
  isProcess: boolean;

  @Column({ type: 'varchar', length: 16, default: 'DRAFT' })
  state: string;

  @Column({ name: 'author_id', type: 'int', nullable: true })
  authorId: number | null;

  @Column({ name: 'approved_by', type: 'int', nullable: true })
  approvedBy: number | null;

  @Column({ name: 'approved_at', type: 'timestamptz', nullable: true })
  approvedAt: Date | null;

  @Column({ name: 'withdrawn_by', type: 'int', nullable: true })
  withdrawnBy: number | null;

  @Column({ name: 'withdrawn_at', type: 'timestamptz', nullable: true })
  withdrawnAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
