import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { adminUrl, ENV_SNAPSHOT, ENV_TEMPLATE_DB, usingPostgres } from './test-env';

export default async function globalTeardown(): Promise<void> {
  const snapshot = process.env[ENV_SNAPSHOT];
  if (snapshot) rmSync(snapshot, { force: true });
  const template = process.env[ENV_TEMPLATE_DB];
  if (usingPostgres() && template) {
    const admin = new Client({ connectionString: adminUrl() });
    await admin.connect();
    const rows = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [template, `cs_t_${template.slice(7)}_%`],
    );
    for (const { datname } of rows.rows) {
      await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
    await admin.end();
  }
}
