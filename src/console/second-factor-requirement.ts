// A tenant that requires a second factor (svc-stt console-users require-totp): its accounts without
// TOTP in effect are sent to the account page to turn it on before any other page or change works.
// Read on every signed-in request, so the operator's setting and a user's change apply at once.
import type { ConsoleUser } from '../store/console-account-store.js';
import type { ConsoleSecondFactorStore } from '../store/console-second-factor-store.js';

/** Where such an account is sent. */
export const SECOND_FACTOR_SETUP_PATH = '/account';

export async function secondFactorSetupNeeded(store: ConsoleSecondFactorStore, user: ConsoleUser): Promise<boolean> {
  return (await store.totpRequired(user.tenant)) && !(await store.totpEnabled(user.id));
}
