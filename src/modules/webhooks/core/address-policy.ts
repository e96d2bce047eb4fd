import * as ipaddr from 'ipaddr.js';

/**
 * Whether a webhook may be sent to an address: only to public unicast addresses, so an admin
 * (or a DNS record they control) cannot aim the server at itself or its private network.
 * Loopback, private, link-local, unique-local, unspecified, carrier-grade NAT, multicast and
 * reserved ranges are all refused; an IPv4 address mapped into IPv6 is judged as IPv4.
 * The ranges are ipaddr.js's (its `range()`), not ours.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** What a webhook URL must look like before its host is even resolved: http(s), no credentials. */
export function urlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'url must be http or https';
  if (url.username || url.password) return 'url must not carry credentials';
  if (raw.length > 2000) return 'url is too long (at most 2000 characters)';
  return null;
}

/** The host of a URL as DNS (or an address literal) takes it: IPv6 literals without brackets. */
export function hostOf(raw: string): string {
  return new URL(raw).hostname.replace(/^\[(.*)\]$/, '$1');
}
