import { originAllowed } from './origin-policy';

describe('originAllowed', () => {
  const listed = ['http://localhost:5173'];

  it('allows anything while CORS_ORIGINS is empty, and requests without an Origin', () => {
    expect(originAllowed({ origin: 'https://evil.example', host: 'api.example' }, [])).toBe(true);
    expect(originAllowed({ host: 'api.example' }, listed)).toBe(true);
  });

  it("allows a listed origin and the server's own origin (its Host), whatever CORS_ORIGINS says", () => {
    expect(originAllowed({ origin: 'http://localhost:5173', host: '127.0.0.1:3000' }, listed)).toBe(true);
    expect(originAllowed({ origin: 'http://127.0.0.1:3000', host: '127.0.0.1:3000' }, listed)).toBe(true);
    expect(originAllowed({ origin: 'https://API.example', host: 'api.example' }, listed)).toBe(true);
  });

  it('refuses another origin, another port of the same host, and origins that are not http(s)', () => {
    expect(originAllowed({ origin: 'https://evil.example', host: '127.0.0.1:3000' }, listed)).toBe(false);
    expect(originAllowed({ origin: 'http://127.0.0.1:3001', host: '127.0.0.1:3000' }, listed)).toBe(false);
    expect(originAllowed({ origin: 'null', host: '127.0.0.1:3000' }, listed)).toBe(false);
    expect(originAllowed({ origin: 'file://127.0.0.1:3000', host: '127.0.0.1:3000' }, listed)).toBe(false);
    expect(originAllowed({ origin: 'http://127.0.0.1:3000' }, listed)).toBe(false);
  });
});
