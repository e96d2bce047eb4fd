import { Column, Entity, OneToMany, PrimaryGeneratedColumn } from 'typeorm';
import { SiteLanguageEntity } from './site-language.entity';

/** A site. Its root page is the page of the site without a parent (one per site). */
@Entity({ name: 'site' })
export class SiteEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200, unique: true })
  name: string;

  @OneToMany(() => SiteLanguageEntity, (l) => l.site)
  languages?: SiteLanguageEntity[];
}
