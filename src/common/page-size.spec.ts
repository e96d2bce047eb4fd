import { Refusal } from './refusal';
import { pageOffset, pageSize } from './page-size';

describe('pageSize', () => {
  it('passes sizes up to the largest page and cuts larger ones to it', () => {
    expect(pageSize(0, 200)).toBe(0);
    expect(pageSize(50, 200)).toBe(50);
    expect(pageSize(200, 200)).toBe(200);
    expect(pageSize(100_000, 200)).toBe(200);
  });

  it('refuses a negative size with BAD_USER_INPUT naming the argument', () => {
    for (const [size, field] of [
      [-1, 'first'],
      [-500, 'last'],
    ] as const) {
      expect(() => pageSize(size, 200, field)).toThrow(
        expect.objectContaining({ code: 'BAD_USER_INPUT', details: { field } }),
      );
    }
    expect(() => pageSize(-1, 200)).toThrow(Refusal);
  });
});

describe('pageOffset', () => {
  it('reads no offset as 0 and passes others', () => {
    expect(pageOffset(null)).toBe(0);
    expect(pageOffset(undefined)).toBe(0);
    expect(pageOffset(30)).toBe(30);
  });

  it('refuses a negative offset with BAD_USER_INPUT', () => {
    expect(() => pageOffset(-5)).toThrow(
      expect.objectContaining({ code: 'BAD_USER_INPUT', details: { field: 'offset' } }),
    );
  });
});
