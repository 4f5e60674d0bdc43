// Retry-After as the contract's clients read it: whole seconds, never 0 (a 0 invites a hot loop).
export function retryAfterSeconds(seconds: number): number {
  return Number.isFinite(seconds) ? Math.max(1, Math.ceil(seconds)) : 60;
}

export function retryAfterHeader(seconds: number): Record<string, string> {
  return { 'retry-after': String(retryAfterSeconds(seconds)) };
}
