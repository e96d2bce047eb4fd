import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { PageEntity } from './page.entity';

/** A page's text in one language and one workspace (0 = live). */
@Entity({ name: 'page_text' })
export class PageTextEntity {
  @PrimaryColumn({ name: 'page_id', type: 'int' })
  pageId: number;

  @PrimaryColumn({ name: 'language_id', type: 'int' })
  languageId: number;

  @PrimaryColumn({ name: 'workspace_id', type: 'int' })
  workspaceId: number;

  @ManyToOne(() => PageEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'page_id' })
  page?: PageEntity;

  @Column({ type: 'varchar', length: 500 })
  title: string;

  @Column({ type: 'text', default: '' })
  body: string;

  @Column({ name: 'seo_title', type: 'varchar', length: 500, nullable: true })
  seoTitle: string | null;

  @Column({ name: 'seo_description', type: 'text', nullable: true })
  seoDescription: string | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
