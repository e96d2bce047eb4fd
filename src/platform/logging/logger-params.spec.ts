import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pinoHttp } from 'pino-http';
import { loadConfig } from '../../config/app-config';
import { httpLoggerOptions, logFormatOf } from './logger-params';

/** Runs one request through pino-http with our params; returns the parsed log lines. */
async function logOf(
  logLevel: string,
  request: { path: string; headers: Record<string, string>; body: string },
): Promise<{ lines: Array<Record<string, unknown>>; raw: string; requestId: string | null }> {
  let raw = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw += chunk.toString();
      done();
    },
  });
  const middleware = pinoHttp(httpLoggerOptions(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: logLevel })), sink);
  const server: Server = createServer((req, res) => {
    middleware(req, res);
    req.resume();
    req.on('end', () => {
      res.statusCode = 200;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}${request.path}`, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
  });
  await res.text();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await new Promise((resolve) => setImmediate(resolve));
  const lines = raw
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { lines, raw, requestId: res.headers.get('x-request-id') };
}

const SECRET_TOKEN = 'cs_very-secret-token-value';
const request = {
  path: '/graphql?query=secret-query-text',
  headers: {
    authorization: `Bearer ${SECRET_TOKEN}`,
    'content-type': 'application/json',
    cookie: 'sid=secret-cookie',
  },
  body: JSON.stringify({ query: '{ viewer { user { username } } }', variables: { password: 'secret-body' } }),
};

describe('structured request logs', () => {
  it('writes one JSON line per request with the correlation id, method, path and status', async () => {
    const { lines, requestId } = await logOf('info', request);
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line.msg).toBe('request completed');
    expect(line.req).toEqual({ id: requestId, method: 'POST', url: '/graphql' });
    expect(line.res).toEqual({ statusCode: 200 });
    expect(typeof line.responseTime).toBe('number');
    expect(typeof line.time).toBe('string'); // ISO time
  });

  it('never logs headers, bodies or query strings (no Authorization, ever)', async () => {
    const { raw } = await logOf('trace', request);
    expect(raw.length).toBeGreaterThan(0);
    for (const secret of [SECRET_TOKEN, 'Bearer', 'secret-cookie', 'secret-body', 'secret-query-text']) {
      expect(raw).not.toContain(secret);
    }
    expect(raw.toLowerCase()).not.toContain('authorization');
    expect(raw.toLowerCase()).not.toContain('headers');
  });

  it('logs an error with its type, message and stack', () => {
    let raw = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        raw += chunk.toString();
        done();
      },
    });
    const { logger } = pinoHttp(httpLoggerOptions(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info' })), sink);
    logger.error({ err: new TypeError('boom') }, 'request failed');
    const line = JSON.parse(raw) as { err: { type: string; message: string; stack: string } };
    expect(line.err).toMatchObject({ type: 'TypeError', message: 'boom' });
    expect(line.err.stack).toContain('TypeError: boom');
  });

  it('logs nothing at LOG_LEVEL=silent (the tests default)', async () => {
    const { raw } = await logOf('silent', request);
    expect(raw).toBe('');
  });
});

describe('the log format', () => {
  const at = (env: Record<string, string>, tty: boolean) => logFormatOf(loadConfig(env), tty);

  it('is readable on a terminal outside production, JSON on a pipe or a file', () => {
    expect(at({}, true)).toBe('pretty');
    expect(at({ NODE_ENV: 'test' }, true)).toBe('pretty');
    expect(at({}, false)).toBe('json');
  });

  it('stays JSON in production, even on a terminal', () => {
    expect(at({ NODE_ENV: 'production' }, true)).toBe('json');
  });

  it('follows LOG_FORMAT whatever the terminal and environment', () => {
    expect(at({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
    expect(at({ LOG_FORMAT: 'json' }, true)).toBe('json');
  });
});
