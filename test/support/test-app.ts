import { INestApplication } from '@nestjs/common';
import { createClient, Client as WsClient } from 'graphql-ws';
import { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import WebSocket from 'ws';
import { createApp } from '../../src/bootstrap';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { createTestDatabase, demoTokens, TestDatabase } from './test-database';
import { TEST_STATE_KEY } from './test-env';

export interface GqlResponse<T = Record<string, unknown>> {
  status: number;
  data?: T | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown>; path?: unknown[] }>;
}

export interface TestApp {
  readonly app: INestApplication;
  readonly db: TestDatabase;
  readonly dataSource: DataSource;
  readonly config: AppConfig;
  readonly url: string;
  readonly wsUrl: string;
  /** Demo users' tokens: admin, alice, bob, carol, dave, erin. */
  readonly tokens: Record<string, string>;
  /** A GraphQL request over HTTP; `as` is a demo username or a raw token. */
  gql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    as?: string | null,
  ): Promise<GqlResponse<T>>;
  /** A graphql-ws client authenticated as a demo user (or raw token, or none). */
  ws(as?: string | null): WsClient;
  /** The first error code of a response (or undefined). */
  close(): Promise<void>;
}

/** Boots the whole application on a fresh test database, listening on a random port. */
export async function bootTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    STATE_ENCRYPTION_KEY: TEST_STATE_KEY,
    PORT: '0',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    DB_MIGRATE: 'false',
    SEED_DEMO: 'false',
    // why: tests take the inline path unless they opt into the durable one explicitly.
    DECISION_PATH: 'inline',
    // why: suites start many runs as one user in seconds; the per-user run caps are out of the
    // way unless a test sets them (test/e2e/run-caps.e2e-spec.ts does).
    RUN_STARTS_PER_MINUTE: '1000000',
    RUNS_MAX_WAITING_PER_USER: '100000',
    ...env,
  });
  const app = await createApp(config, db.target);
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer() as { address(): AddressInfo };
  const port = server.address().port;
  const url = `http://127.0.0.1:${port}/graphql`;
  const wsUrl = `ws://127.0.0.1:${port}/graphql`;
  const tokens = demoTokens();
  const tokenOf = (as: string | null | undefined): string | null =>
    as === null || as === undefined ? null : (tokens[as] ?? as);
  const clients: WsClient[] = [];
  return {
    app,
    db,
    dataSource: app.get(DataSource),
    config,
    url,
    wsUrl,
    tokens,
    async gql<T>(query: string, variables?: Record<string, unknown>, as: string | null = 'admin') {
      const token = tokenOf(as);
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          // why: what Apollo Client 3.x sends; a refused document keeps its 4xx status then
          // (application/json clients get 200, test/e2e/graphql-over-http.e2e-spec.ts).
          accept: 'application/graphql-response+json,application/json;q=0.9',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as Omit<GqlResponse<T>, 'status'>;
      return { status: res.status, ...body };
    },
    ws(as: string | null = 'admin') {
      const token = tokenOf(as);
      const client = createClient({
        url: wsUrl,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        lazy: true,
        connectionParams: token ? { authorization: `Bearer ${token}` } : {},
      });
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients) await c.dispose();
      await app.close();
      await db.dispose();
    },
  };
}

/** The `extensions.code` of the first error, if any. */
export function errorCode(res: GqlResponse<unknown>): string | undefined {
  return res.errors?.[0]?.extensions?.code as string | undefined;
}
