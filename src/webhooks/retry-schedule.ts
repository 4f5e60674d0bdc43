// When a failed attempt is tried again (the contract): immediately, then after 1 min, 5 min, 30 min,
// 2 h and 8 h; after the sixth attempt the event is given up. A little jitter (at most 2 % of the
// delay, never more than a minute) keeps a receiver that comes back from being hit by every
// waiting event in the same second.

export const RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 8 * 3600_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const MAX_JITTER_MS = 60_000;

/** When to make the next attempt after `attemptsMade` failed ones, or null when none is left. */
export function nextAttemptAt(attemptsMade: number, nowMs: number, random: () => number = Math.random): number | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const delay = RETRY_DELAYS_MS[attemptsMade - 1]!;
  return nowMs + delay + Math.floor(random() * Math.min(delay * 0.02, MAX_JITTER_MS));
}
