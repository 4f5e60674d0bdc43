// What the billing layer throws when work is not accepted; src/api maps it to 402 billing_blocked,
// realtime to its error event and close. The message names the limit, never the account's figures.
import type { UsagePool } from '../domain/usage-routes.js';
import type { BlockReason } from './billing-decision.js';

const MESSAGES: Readonly<Record<BlockReason, (pool: UsagePool) => string>> = {
  paused: () => 'usage is paused for this account',
  allowance: (pool) => `the monthly ${pool} allowance is used and this plan has no overage`,
  spend_cap: () => "this key's monthly spend cap is reached",
  credit: () => "this key's prepaid credit is used",
};

/** What a block means, in words (the API's message and the CLI's report say the same). */
export function blockDescription(reason: BlockReason, pool: UsagePool, resetsAtMs: number | null): string {
  const resets = resetsAtMs === null ? '' : ` until ${new Date(resetsAtMs).toISOString()}`;
  return `${MESSAGES[reason](pool)}${resets}`;
}

export class BillingBlockedError extends Error {
  constructor(
    readonly reason: BlockReason,
    readonly pool: UsagePool,
    /** When the block lifts by itself (the next period), or null when it needs an operator. */
    readonly resetsAtMs: number | null,
  ) {
    super(`${blockDescription(reason, pool, resetsAtMs)}; result retrieval keeps working`);
    this.name = 'BillingBlockedError';
  }
}
