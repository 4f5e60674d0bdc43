// Which IP addresses a webhook may be delivered to. An address is public only when ipaddr.js puts it
// in no special-purpose range ('unicast'), after unwrapping IPv4-mapped IPv6 so ::ffff:10.0.0.1 is
// judged as 10.0.0.1. IPv6 must also lie in 2000::/3, the only block allocated for global unicast:
// that refuses deprecated forms ipaddr.js leaves 'unicast', such as IPv4-compatible ::127.0.0.1.
// Forms that embed another address (NAT64, 6to4, Teredo) are named ranges and so never public.
import { isIP } from 'node:net';

import ipaddr from 'ipaddr.js';

export type AddressKind = 'public' | 'loopback' | 'other';

export interface ClassifiedAddress {
  /** Canonical text, IPv4-mapped forms unwrapped: the address a connection would really reach. */
  address: string;
  family: 4 | 6;
  kind: AddressKind;
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Classifies an IP address in text form; null when the text is not an IP address. Only standard
 * notation counts (node's isIP): legacy IPv4 forms such as 0177.1 are a URL parser's business.
 */
export function classifyAddress(text: string): ClassifiedAddress | null {
  if (isIP(text) === 0) return null;
  const parsed = ipaddr.process(text);
  const range = parsed.range();
  const family = parsed.kind() === 'ipv4' ? 4 : 6;
  let kind: AddressKind = 'other';
  if (range === 'loopback') kind = 'loopback';
  else if (range === 'unicast' && (parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6))) kind = 'public';
  return { address: parsed.toString(), family, kind };
}
