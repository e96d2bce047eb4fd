import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { SiteEntity } from './site.entity';

/** A language of a site; 0 is the site's default language. */
@Entity({ name: 'site_language' })
export class SiteLanguageEntity {
  @PrimaryColumn({ name: 'site_id', type: 'int' })
  siteId: number;

  @PrimaryColumn({ name: 'language_id', type: 'int' })
  languageId: number;

  @ManyToOne(() => SiteEntity, (s) => s.languages, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;

  @Column({ name: 'iso_code', type: 'varchar', length: 16 })
  isoCode: string;

  @Column({ type: 'varchar', length: 200 })
  title: string;
}
