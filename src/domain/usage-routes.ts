// Where work comes in, and the allowance pool each route draws on: the words the ledger, billing,
// the usage API and the console all use.

/** Where the work came in. */
export const USAGE_ROUTES = ['inline', 'translation', 'job', 'realtime'] as const;
export type UsageRoute = (typeof USAGE_ROUTES)[number];

/** Allowances are counted per pool: realtime has its own (the contract's 25 audio-hours), the rest is batch. */
export const USAGE_POOLS = ['batch', 'realtime'] as const;
export type UsagePool = (typeof USAGE_POOLS)[number];

export function poolOf(route: UsageRoute): UsagePool {
  return route === 'realtime' ? 'realtime' : 'batch';
}
