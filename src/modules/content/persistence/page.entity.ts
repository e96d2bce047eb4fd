import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { SiteEntity } from './site.entity';

/**
 * A page in the tree. `rootline` is the path from the tree's root to this page, inclusive
 * (ids), so subtree permissions are a set intersection rather than a recursive query.
 */
@Entity({ name: 'page' })
@Index('page_one_root_per_site', ['siteId'], {
  unique: true,
  where: '"parent_id" IS NULL AND "site_id" IS NOT NULL',
})
export class PageEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @Column({ name: 'parent_id', type: 'int', nullable: true })
  parentId: number | null;

  @ManyToOne(() => PageEntity, { onDelete: 'RESTRICT', nullable: true })
  @JoinColumn({ name: 'parent_id' })
  parent?: PageEntity | null;

  @Index()
  @Column({ name: 'site_id', type: 'int', nullable: true })
  siteId: number | null;

  @ManyToOne(() => SiteEntity, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity | null;

  @Column({ type: 'varchar', length: 500 })
  slug: string;

  @Column({ type: 'int', default: 0 })
  sorting: number;

  @Column({ type: 'int', array: true, default: () => "'{}'" })
  rootline: number[];
}
