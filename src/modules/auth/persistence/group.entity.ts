import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A group: grants plus content permissions (page subtrees to show and edit, languages). */
@Entity({ name: 'access_group' })
export class GroupEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100, unique: true })
  name: string;

  /** AGENT_APPROVE, CHAT */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  grants: string[];

  /** Roots of the page subtrees the group may show. */
  @Column({ name: 'show_page_ids', type: 'int', array: true, default: () => "'{}'" })
  showPageIds: number[];

  /** Roots of the page subtrees the group may edit. */
  @Column({ name: 'edit_page_ids', type: 'int', array: true, default: () => "'{}'" })
  editPageIds: number[];

  /** Language ids the group may edit. */
  @Column({ name: 'edit_language_ids', type: 'int', array: true, default: () => "'{}'" })
  editLanguageIds: number[];
}
