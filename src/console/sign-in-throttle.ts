// Sign-in attempts per client address: at most `perMinute` in a minute (a window from the address's
// first attempt). Counted in the database (ConsoleAccountStore.countSignInAttempt), not in this
// process: with several API processes on one database an address gets one count, not one per process.
// The ended windows are deleted by the sweeper. An IPv6 client is counted by its /64: one host, or
// one site, is usually handed a whole /64, and could otherwise take a fresh address for every attempt.
import { isIPv6 } from 'node:net';

import { type ConsoleAccountStore, SIGN_IN_WINDOW_MS } from '../store/console-account-store.js';

export class SignInThrottle {
  constructor(
    private readonly accounts: Pick<ConsoleAccountStore, 'countSignInAttempt'>,
    private readonly perMinute: number,
    private readonly clock: () => number,
  ) {}

  /** Counts an attempt from `address`: 0 when allowed, else how long (ms) until the next one is. */
  async take(address: string): Promise<number> {
    const now = this.clock();
    const { windowStartMs, attempts } = await this.accounts.countSignInAttempt(throttledAddress(address), now);
    return attempts <= this.perMinute ? 0 : windowStartMs + SIGN_IN_WINDOW_MS - now;
  }
}

/** What one count is kept for: an IPv4 address as it is (an IPv4-mapped IPv6 one too); an IPv6 address's /64, as `2001:db8:0:1::/64`. */
export function throttledAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return address;
  const [head, tail = ''] = bare.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = bare.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
