// The sweeper's share of sign-in housekeeping: console invites used or expired, console sessions past
// their limits, ended sign-in windows and password failures, pending second-factor sign-ins and
// realtime client secrets that expired. None of them opens anything any more (each is refused where it
// is presented); deleted here, they do not pile up between the uses that would otherwise sweep them.
import type { ConsoleAccountStore, SessionLimits } from '../store/console-account-store.js';
import type { ConsoleSecondFactorStore } from '../store/console-second-factor-store.js';
import type { RealtimeClientSecretStore } from '../store/realtime-client-secret-store.js';

export interface ExpiredCredentialStores {
  consoleAccounts: Pick<ConsoleAccountStore, 'deleteEnded'>;
  consoleSecondFactors: Pick<ConsoleSecondFactorStore, 'deleteExpiredPendingSignIns'>;
  clientSecrets: Pick<RealtimeClientSecretStore, 'sweep'>;
  /** The console's own session limits: a session is deleted exactly when the console would refuse it. */
  sessionLimits: SessionLimits;
}

export async function deleteExpiredCredentials(stores: ExpiredCredentialStores, nowMs: number): Promise<void> {
  await stores.consoleAccounts.deleteEnded(nowMs, stores.sessionLimits);
  await stores.consoleSecondFactors.deleteExpiredPendingSignIns(nowMs);
  await stores.clientSecrets.sweep(nowMs);
}
