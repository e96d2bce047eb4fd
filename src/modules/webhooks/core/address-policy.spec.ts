import { hostOf, isPublicAddress, urlProblem } from './address-policy';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '100.64.0.1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8'])('allows %s', (a) => {
    expect(isPublicAddress(a)).toBe(true);
  });
});

describe('urlProblem and hostOf', () => {
  it('takes http(s) URLs without credentials only', () => {
    expect(urlProblem('https://hooks.example.com/x')).toBeNull();
    expect(urlProblem('ftp://hooks.example.com/x')).toMatch(/http/);
    expect(urlProblem('https://u:p@hooks.example.com/x')).toMatch(/credentials/);
    expect(urlProblem('nonsense')).toMatch(/absolute/);
  });

  it('gives IPv6 literals without brackets', () => {
    expect(hostOf('http://[::1]:8080/x')).toBe('::1');
    expect(hostOf('http://127.0.0.1:8080/x')).toBe('127.0.0.1');
  });
});
