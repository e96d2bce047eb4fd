import { Client } from 'pg';

/**
 * A raw node-postgres connection, autocommit, synchronous commit on (whatever the server
 * default). Errors of the idle connection are ignored; a query in flight still rejects.
 */
export async function rawClient(url: string, name = 'countersign-bench-raw'): Promise<Client> {
  const client = new Client({ connectionString: url, application_name: name });
  // why: an idle connection that the server ends (DROP DATABASE ... WITH (FORCE) on Ctrl-C)
  // emits 'error'; unhandled, that would crash the process before the cleanup finishes.
  client.on('error', () => undefined);
  await client.connect();
  await client.query('SET synchronous_commit = on');
  return client;
}

/** The server's clock now, ms since the epoch: windows are cut by the database's own timestamps. */
export async function serverClock(client: Client): Promise<number> {
  const r = await client.query<{ ms: number }>(
    `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`,
  );
  return r.rows[0]!.ms;
}
