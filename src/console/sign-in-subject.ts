// What wrong passwords are counted under (ConsoleAccountStore.recordFailedPassword): a digest of the
// email as typed (trimmed, lower-cased), never the email itself, and the same for an email no account
// has as for an account's. So the count, the lock and its message say nothing of which emails have
// accounts, and the table holds no address in clear.
import { createHash } from 'node:crypto';

const DOMAIN = 'svc-stt console sign-in subject\0';

export function signInSubject(email: string): string {
  return createHash('sha256')
    .update(DOMAIN + email.trim().toLowerCase())
    .digest('base64url');
}
