import { scrapeAllowed } from './metrics.controller';

describe('scrapeAllowed', () => {
  it('lets every scrape in without METRICS_TOKEN', () => {
    expect(scrapeAllowed(undefined, null)).toBe(true);
  });

  it('asks for exactly the token with METRICS_TOKEN', () => {
    const token = 'scrape-secret-0123456789';
    expect(scrapeAllowed(`Bearer ${token}`, token)).toBe(true);
    expect(scrapeAllowed(`bearer ${token}`, token)).toBe(true);
    expect(scrapeAllowed(undefined, token)).toBe(false);
    expect(scrapeAllowed(`Bearer ${token}x`, token)).toBe(false);
    expect(scrapeAllowed(token, token)).toBe(false);
  });
});
