import { Inject, Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { badInput, Refusal } from '../../../common/refusal';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { hostOf, isPublicAddress, urlProblem } from '../core/address-policy';

/**
 * The SSRF guard: a webhook URL must be http(s) and every address its host resolves to public
 * (core/address-policy.ts), checked when an endpoint is registered or changed AND before each
 * delivery (DNS may have changed since). WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true lifts the
 * address check (a receiver on the same host or network, the tests').
 */
@Injectable()
export class UrlGuard {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** BAD_USER_INPUT for a malformed URL, WEBHOOK_URL_NOT_ALLOWED for a private or unresolvable one. */
  async check(url: string): Promise<void> {
    const problem = urlProblem(url);
    if (problem) throw badInput(problem, { field: 'url' });
    const refused = await this.refusalOf(url);
    if (refused) throw new Refusal('WEBHOOK_URL_NOT_ALLOWED', refused, { field: 'url' });
  }

  /** Why the URL may not be called now, or null when it may. */
  async refusalOf(url: string): Promise<string | null> {
    if (this.config.webhooks.allowPrivateNetworks) return null;
    const host = hostOf(url);
    let addresses: string[];
    try {
      addresses = isIP(host)
        ? [host]
        : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return `The host ${host} does not resolve`;
    }
    const bad = addresses.find((a) => !isPublicAddress(a));
    return bad === undefined
      ? null
      : `The URL resolves to ${bad}, a loopback, private, link-local or otherwise non-public address`;
  }
}
