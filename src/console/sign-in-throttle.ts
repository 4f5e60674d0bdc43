// Sign-in attempts per client address: at most `perMinute` in a minute (a window from the address's
// first attempt). Counted in the database (ConsoleAccountStore.countSignInAttempt), not in this
// process: with several API processes on one database an address gets one count, not one per process.
// The ended windows are deleted by the sweeper.
import { SIGN_IN_WINDOW_MS, type ConsoleAccountStore } from '../store/console-account-store.js';

export class SignInThrottle {
  constructor(
    private readonly accounts: Pick<ConsoleAccountStore, 'countSignInAttempt'>,
    private readonly perMinute: number,
    private readonly clock: () => number,
  ) {}

  /** Counts an attempt from `address`: 0 when allowed, else how long (ms) until the next one is. */
  async take(address: string): Promise<number> {
    const now = this.clock();
    const { windowStartMs, attempts } = await this.accounts.countSignInAttempt(address, now);
    return attempts <= this.perMinute ? 0 : windowStartMs + SIGN_IN_WINDOW_MS - now;
  }
}
