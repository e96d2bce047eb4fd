import { ContentQueries } from '../../src/modules/content/application/content-queries';
import { useTestApp } from '../support/suite';

// The request log as operators read it (docs/operations.md, "Logs"): JSON lines on a pipe, one
// per request, and a fault's correlation id in the answer equal to that request's id in the log.

interface LogLine {
  msg?: string;
  correlationId?: string;
  req?: { id?: string; url?: string };
  res?: { statusCode?: number };
}

describe('request logs and the correlation id of a fault', () => {
  const { t } = useTestApp({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
  let captured = '';
  let stdout: jest.SpyInstance;
  beforeEach(() => {
    captured = '';
    // why: the server logs to process.stdout; the lines are read here instead of printed.
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      captured += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      return true;
    });
  });
  afterEach(() => stdout.mockRestore());

  const logged = (): LogLine[] =>
    captured
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);

  async function sitesWithAFault(headers: Record<string, string> = {}) {
    jest.spyOn(t.app.get(ContentQueries), 'sites').mockRejectedValueOnce(new Error('disk on fire'));
    const res = await fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.admin}`, ...headers },
      body: JSON.stringify({ query: '{ sites { id } }' }),
    });
    const body = (await res.json()) as {
      errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
    };
    await new Promise((resolve) => setImmediate(resolve)); // the request line follows the answer
    return { requestId: res.headers.get('x-request-id'), error: body.errors?.[0] };
  }

  it("answers a fault with the request's id, which its request line and its fault line carry", async () => {
    const { requestId, error } = await sitesWithAFault();
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error?.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', correlationId: requestId });
    expect(error?.message).toBe('Internal server error');

    const lines = logged();
    const requestLines = lines.filter((l) => l.msg === 'request completed' && l.req?.id === requestId);
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]!.req?.url).toBe('/graphql');
    const faults = lines.filter((l) => l.msg === 'unhandled fault');
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatchObject({ correlationId: requestId, req: { id: requestId } });
    expect(captured).toContain('disk on fire'); // the details are logged, never answered
  });

  it('uses a sane x-request-id the client sent as that id', async () => {
    const { requestId, error } = await sitesWithAFault({ 'x-request-id': 'client-trace-0042' });
    expect(requestId).toBe('client-trace-0042');
    expect(error?.extensions?.correlationId).toBe('client-trace-0042');
    expect(logged().filter((l) => l.req?.id === 'client-trace-0042').length).toBeGreaterThanOrEqual(2);
  });
});
