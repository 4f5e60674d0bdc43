// The full destination check of webhook rule 8, run at request time and again before every attempt:
// syntax, port 443, then every address the host resolves to must be public. The result names the one
// address the attempt must connect to, so the check and the connection see the same answer.
import { checkWebhookUrlSyntax } from '../contract/webhook-url.js';
import type { DestinationPolicy } from './destination-policy.js';
import { DestinationRefusedError } from './destination-refused-error.js';
import { type ClassifiedAddress, classifyAddress } from './public-address.js';
import { checkDnsServers, resolveHost } from './resolve-host.js';

export interface ValidatedDestination {
  /** The parsed URL (path + query are what gets requested). */
  url: URL;
  /** For SNI and the Host header (no brackets). */
  hostname: string;
  /** The one validated IP the connection must go to. */
  address: string;
  family: 4 | 6;
  port: number;
}

const HTTPS_PORT = 443;

/**
 * Returns a function that checks a destination end to end: syntax (https, at most 2,048 chars, no user
 * info, no fragment), port 443, then DNS: the host's A and AAAA records (or the IP literal) must ALL be
 * public unicast; any non-public answer refuses. No records / NXDOMAIN / DNS failure refuses too.
 * With `allowLoopback` (tests only) loopback addresses pass, on any port when all addresses are loopback.
 */
export function createDestinationValidator(policy: DestinationPolicy): (rawUrl: string) => Promise<ValidatedDestination> {
  const servers = policy.dnsServers ? [...policy.dnsServers] : null;
  if (servers) checkDnsServers(servers);
  const allowed = (address: ClassifiedAddress) => address.kind === 'public' || (policy.allowLoopback && address.kind === 'loopback');

  return async (rawUrl) => {
    const syntax = checkWebhookUrlSyntax(rawUrl);
    if (!syntax.ok) throw new DestinationRefusedError(`the URL ${syntax.problem}`);
    const url = syntax.url;
    const port = url.port === '' ? HTTPS_PORT : Number(url.port);
    // Without loopback nothing can waive the port rule: refuse before asking DNS anything.
    if (port !== HTTPS_PORT && !policy.allowLoopback) throw portRefused();
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;

    // The URL parser has already turned decimal, octal and hex IPv4 forms into dotted decimal.
    const literal = classifyAddress(hostname);
    let addresses: ClassifiedAddress[];
    if (literal) {
      if (!allowed(literal)) throw new DestinationRefusedError('the address is not public');
      addresses = [literal];
    } else {
      addresses = (await resolveHost(hostname, servers)).map((answer) => {
        const address = classifyAddress(answer);
        if (!address || !allowed(address)) throw new DestinationRefusedError('the host name resolves to a non-public address');
        return address;
      });
    }
    if (port !== HTTPS_PORT && !addresses.every((address) => address.kind === 'loopback')) throw portRefused();

    const chosen = addresses.find((address) => address.family === 4) ?? addresses[0];
    return { url, hostname, address: chosen.address, family: chosen.family, port };
  };
}

function portRefused(): DestinationRefusedError {
  return new DestinationRefusedError('the port must be 443');
}
