/* eslint-disable no-console */
// Migration commands: run, revert, generate <Name>, check (fails on drift between the
// entities and the migrations). Against DATABASE_URL where set; else run/revert use the
// embedded database in DATA_DIR, and generate/check a fresh in-memory one.
import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig } from '../../config/app-config';
import { dataSourceOptions, DatabaseTarget } from './data-source-options';
import { openEmbeddedDatabase, openMemoryDatabase, EmbeddedDatabase } from './pglite';

const MIGRATIONS_DIR = join(__dirname, '..', '..', '..', '..', 'migrations');

async function withDataSource<T>(useMemory: boolean, fn: (ds: DataSource) => Promise<T>): Promise<T> {
  const config = loadConfig();
  let embedded: EmbeddedDatabase | null = null;
  let target: DatabaseTarget;
  if (config.databaseUrl) {
    target = { kind: 'postgres', url: config.databaseUrl };
  } else {
    embedded = useMemory ? await openMemoryDatabase() : await openEmbeddedDatabase(config.dataDir);
    target = { kind: 'pglite', pglite: embedded.pglite };
  }
  const ds = new DataSource(dataSourceOptions(target, 2));
  await ds.initialize();
  try {
    return await fn(ds);
  } finally {
    await ds.destroy();
    await embedded?.close();
  }
}

/** The SQL that would bring the migrated database in line with the entities. */
export async function pendingSchemaChanges(ds: DataSource): Promise<{ up: string[]; down: string[] }> {
  await ds.runMigrations({ transaction: 'each' });
  const log = await ds.driver.createSchemaBuilder().log();
  return {
    up: log.upQueries.map((q) => q.query),
    down: log.downQueries.map((q) => q.query).reverse(),
  };
}

function render(className: string, up: string[], down: string[]): string {
  const q = (sql: string): string => `    await queryRunner.query(\`${sql.replace(/[`\\$]/g, '\\$&')}\`);`;
  return [
    "import { MigrationInterface, QueryRunner } from 'typeorm';",
    '',
    `export class ${className} implements MigrationInterface {`,
    `  name = '${className}';`,
    '',
    '  public async up(queryRunner: QueryRunner): Promise<void> {',
    ...up.map(q),
    '  }',
    '',
    '  public async down(queryRunner: QueryRunner): Promise<void> {',
    ...down.map(q),
    '  }',
    '}',
    '',
  ].join('\n');
}

async function main(): Promise<number> {
  const [command, name] = process.argv.slice(2);
  switch (command ?? '') {
    case 'run':
      return withDataSource(false, async (ds) => {
        const done = await ds.runMigrations({ transaction: 'each' });
        console.log(done.length ? `applied: ${done.map((m) => m.name).join(', ')}` : 'up to date');
        return 0;
      });
    case 'revert':
      return withDataSource(false, async (ds) => {
        await ds.undoLastMigration({ transaction: 'each' });
        console.log('reverted the last migration');
        return 0;
      });
    case 'check':
      return withDataSource(true, async (ds) => {
        const { up } = await pendingSchemaChanges(ds);
        if (up.length === 0) {
          console.log('migrations: entities and migrations agree');
          return 0;
        }
        console.log('migrations: DRIFT between entities and migrations; missing SQL:');
        for (const s of up) console.log(`  ${s}`);
        console.log('run `npm run migration:generate -- <NameForIntent>`, read and commit it');
        return 1;
      });
    case 'generate': {
      if (!name || !/^[A-Z][A-Za-z0-9]+$/.test(name)) {
        console.error('usage: npm run migration:generate -- <NameInPascalCase>');
        return 2;
      }
      return withDataSource(true, async (ds) => {
        const { up, down } = await pendingSchemaChanges(ds);
        if (up.length === 0) {
          console.log('no changes: entities and migrations agree');
          return 0;
        }
        const stamp = Date.now();
        const className = `${name}${stamp}`;
        const file = `${stamp}-${name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`;
        writeFileSync(join(MIGRATIONS_DIR, `${file}.ts`), render(className, up, down));
        const indexPath = join(MIGRATIONS_DIR, 'index.ts');
        const index = readFileSync(indexPath, 'utf8')
          .replace(/^(\/\/ The ordered list[^\n]*\n)/m, `$1import { ${className} } from './${file}';\n`)
          .replace(/= \[([^\]]*)\];/s, (_m, list: string) => {
            const items = list
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean);
            items.push(className);
            return `= [\n  ${items.join(',\n  ')},\n];`;
          });
        writeFileSync(indexPath, index);
        console.log(`wrote migrations/${file}.ts (${up.length} statements); read it before committing`);
        return 0;
      });
    }
    default:
      console.error('usage: migrate.js run | revert | check | generate <Name>');
      return 2;
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof ConfigError ? e.message : ((e as Error).stack ?? String(e)));
      process.exit(1);
    },
  );
}
