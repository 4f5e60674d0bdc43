// The operator-facing line for an attempt that got no HTTP status. Only the phase and the error code:
// messages can carry certificate names, addresses or the receiver's text, and this line is stored
// with the delivery and shown by the CLI.

/** How far an attempt got before it failed. */
export type AttemptPhase = 'connect' | 'tls' | 'connection';

export function attemptFailureSummary(phase: AttemptPhase, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return `${phase} ${typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : 'error'}`;
}
