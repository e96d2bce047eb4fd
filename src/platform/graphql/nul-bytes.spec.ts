import { parse } from 'graphql';
import { nulByteError, nulByteIn } from './nul-bytes';

const doc = (source: string) => parse(source);

describe('nulByteIn', () => {
  it('finds a NUL escape in a string or block string literal', () => {
    expect(nulByteIn(doc('mutation { a(x: "a\\u0000b") }'), {})).toBe('a string literal');
    expect(nulByteIn(doc('mutation { a(x: { y: ["ok", "\\u0000"] }) }'), {})).toBe('a string literal');
    expect(nulByteIn(doc('mutation { a(x: """a\u0000b""") }'), {})).toBe('a string literal');
  });

  it('finds a NUL in any variable string or object key, naming the variable', () => {
    expect(nulByteIn(doc('{ a }'), { input: { name: 'ok', list: ['x', 'a\u0000'] } })).toBe(
      'variable $input',
    );
    expect(nulByteIn(doc('{ a }'), { ok: 'x', values: { ['k\u0000']: 1 } })).toBe('variable $values');
  });

  it('checks the variables of every use of one parsed document, and its literals each time', () => {
    // why: whether a document's literals carry a NUL is kept by document (one per operation text).
    const shared = doc('subscription ($id: ID!) { runProgress(runId: $id) { kind } }');
    expect(nulByteIn(shared, { id: 'a' })).toBeNull();
    expect(nulByteIn(shared, { id: 'a\u0000' })).toBe('variable $id');
    const literal = doc('mutation { a(x: "a\\u0000b") }');
    expect(nulByteIn(literal, {})).toBe('a string literal');
    expect(nulByteIn(literal, {})).toBe('a string literal');
  });

  it('walks variables nested far deeper than the call stack allows', () => {
    let deep: unknown = 'leaf\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(nulByteIn(doc('{ a }'), { deep })).toBe('variable $deep');
  });

  it('finds nothing in clean input, and tolerates absent variables', () => {
    expect(nulByteIn(doc('mutation { a(x: "fine", y: 1) }'), { v: { w: ['ok', 2, null, true] } })).toBeNull();
    expect(nulByteIn(doc('{ a }'), undefined)).toBeNull();
    expect(nulByteIn(undefined, null)).toBeNull();
  });

  it('is a 400 client error', () => {
    const e = nulByteError('variable $input');
    expect(e.extensions).toEqual({ code: 'BAD_USER_INPUT', http: { status: 400 } });
    expect(e.message).toContain('variable $input');
  });
});
