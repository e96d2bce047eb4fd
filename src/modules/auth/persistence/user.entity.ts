import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinTable,
  ManyToMany,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { GroupEntity } from './group.entity';

@Entity({ name: 'app_user' })
@Index('app_user_identity_idx', ['identityIssuer', 'identitySubject'], { unique: true })
export class UserEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 64, unique: true })
  username: string;

  @Column({ name: 'display_name', type: 'varchar', length: 200 })
  displayName: string;

  @Column({ type: 'varchar', length: 16, default: 'en' })
  locale: string;

  @Column({ name: 'is_admin', type: 'boolean', default: false })
  isAdmin: boolean;

  /** The identity provider's issuer and subject this user signs in as (null: tokens only). */
  @Column({ name: 'identity_issuer', type: 'varchar', length: 500, nullable: true })
  identityIssuer: string | null;

  @Column({ name: 'identity_subject', type: 'varchar', length: 255, nullable: true })
  identitySubject: string | null;

  @Column({ type: 'varchar', length: 320, nullable: true })
  email: string | null;

  @ManyToMany(() => GroupEntity)
  @JoinTable({
    name: 'group_member',
    joinColumn: { name: 'user_id', referencedColumnName: 'id' },
    inverseJoinColumn: { name: 'group_id', referencedColumnName: 'id' },
  })
  groups?: GroupEntity[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
