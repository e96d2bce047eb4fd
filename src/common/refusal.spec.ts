import { notFound, Refusal } from './refusal';

describe('Refusal', () => {
  it('carries its code, message, details and retryability, and is an Error', () => {
    const r = new Refusal('ALREADY_RESUMING', 'Someone else decided first', { turn: 2 });
    expect(r).toBeInstanceOf(Error);
    expect(r).toBeInstanceOf(Refusal);
    expect(r.name).toBe('Refusal');
    expect(r.message).toBe('Someone else decided first');
    expect(r.details).toEqual({ turn: 2 });
    expect(r.retryable).toBe(true);
    expect(notFound().code).toBe('NOT_FOUND');
    expect(notFound().retryable).toBe(false);
  });

  it('captures no stack trace (normal traffic, never logged with one), and leaves the limit as it was', () => {
    const before = Error.stackTraceLimit;
    const r = new Refusal('NOT_FOUND', 'Run not found');
    expect(r.stack ?? '').not.toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('a fault').stack).toMatch(/\n\s+at /);
  });
});
