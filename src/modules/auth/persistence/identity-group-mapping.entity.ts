import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { GroupEntity } from './group.entity';

/** A value of the identity provider's groups claim, mapped to a group (and maybe admin rights). */
@Entity({ name: 'identity_group_mapping' })
@Unique('identity_group_mapping_value_group_uq', ['claimValue', 'groupId'])
export class IdentityGroupMappingEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'claim_value', type: 'varchar', length: 200 })
  claimValue: string;

  @Column({ name: 'group_id', type: 'int' })
  groupId: number;

  @ManyToOne(() => GroupEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'group_id', foreignKeyConstraintName: 'FK_identity_group_mapping_group' })
  group?: GroupEntity;

  /** Members through this value are admins: the only way a token grants admin rights. */
  @Column({ name: 'grants_admin', type: 'boolean', default: false })
  grantsAdmin: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
