import { characterCount, exceedsPageTextLimit, firstCharacters, PAGE_TEXT_LIMITS } from './page-text';

describe('page text limits', () => {
  it('counts characters as PostgreSQL counts them: a surrogate pair is one', () => {
    expect(characterCount('')).toBe(0);
    expect(characterCount('Grüße')).toBe(5);
    expect(characterCount('🚀🚀🚀')).toBe(3);
    expect(characterCount('a🚀b')).toBe(3);
    // a lone surrogate (JavaScript strings allow it) is one character of its own
    expect(characterCount('\ud83d')).toBe(1);
    expect(characterCount('\ude80\ud83d')).toBe(2);
  });

  it('cuts after n characters, never inside a surrogate pair', () => {
    expect(firstCharacters('🚀🚀🚀', 2)).toBe('🚀🚀');
    expect(firstCharacters('ab🚀c', 3)).toBe('ab🚀');
    expect(firstCharacters('abc', 5)).toBe('abc');
    expect(firstCharacters('\ud83dx', 1)).toBe('\ud83d');
  });

  it('takes a title of 500 emoji (1,000 UTF-16 units) and refuses 501', () => {
    expect(PAGE_TEXT_LIMITS.title).toBe(500);
    expect(exceedsPageTextLimit('title', '🚀'.repeat(500))).toBe(false);
    expect(exceedsPageTextLimit('title', '🚀'.repeat(501))).toBe(true);
    expect(exceedsPageTextLimit('title', 'x'.repeat(501))).toBe(true);
    expect(exceedsPageTextLimit('seoDescription', 'x'.repeat(5_000))).toBe(false);
  });
});
