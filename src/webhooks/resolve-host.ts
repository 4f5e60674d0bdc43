// The one DNS resolution of a webhook attempt: A and AAAA in parallel through c-ares (dns.Resolver,
// which reads no hosts file and keeps no cache across our fresh resolvers). The caller connects to an
// address from this answer, never to a second lookup, so a rebinding answer cannot slip in between.
import { Resolver } from 'node:dns/promises';

import { DestinationRefusedError } from './destination-refused-error.js';

// c-ares retries with growing timeouts; the deadline is what really bounds a dead server.
const TRY_TIMEOUT_MS = 1500;
const TRIES = 2;
const DEADLINE_MS = 5000;

// "No such name" and "no records of this type": an answer, not a failure.
const NO_ANSWER = new Set(['ENOTFOUND', 'ENODATA']);

/** Throws at once on a malformed server list, so a bad setting fails at start rather than per attempt. */
export function checkDnsServers(servers: string[]): void {
  new Resolver().setServers(servers);
}

/** Every A and AAAA address of `hostname`; refuses when there are none or DNS fails. */
export async function resolveHost(hostname: string, servers: string[] | null): Promise<string[]> {
  const resolver = new Resolver({ timeout: TRY_TIMEOUT_MS, tries: TRIES });
  if (servers) resolver.setServers(servers);
  const deadline = setTimeout(() => resolver.cancel(), DEADLINE_MS);
  let answers: PromiseSettledResult<string[]>[];
  try {
    answers = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
  } finally {
    clearTimeout(deadline);
  }
  const addresses: string[] = [];
  for (const answer of answers) {
    if (answer.status === 'fulfilled') addresses.push(...answer.value);
    // A family we could not check might hold a private address: refuse rather than guess.
    else if (!NO_ANSWER.has((answer.reason as NodeJS.ErrnoException).code ?? ''))
      throw new DestinationRefusedError('the host name could not be resolved (DNS failure)');
  }
  if (addresses.length === 0) throw new DestinationRefusedError('the host name does not resolve');
  return addresses;
}
