// What a console password must be (NIST SP 800-63B's advice: length over composition rules, and a
// check against passwords known to be common): 12 to 256 characters, not a common one, not one
// character repeated, not the account's email. The message names the rule, never the password.

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

/**
 * Passwords of 12 characters or more that head every published list of leaked passwords (shorter
 * ones are refused by length already). Compared without case.
 */
const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456789123',
  '123123123123',
  '111111111111',
  '000000000000',
  'password1234',
  'password12345',
  'password123456',
  'passwordpassword',
  'password1234567',
  'qwertyuiopasdfgh',
  'qwertyuiop123',
  'qwerty123456',
  '1qaz2wsx3edc',
  'qazwsxedcrfv',
  'iloveyou1234',
  'welcome12345',
  'welcome123456',
  'letmein12345',
  'administrator',
  'adminadmin123',
  'changeme1234',
  'abcdefghijkl',
  'abc123abc123',
  'monkey123456',
  'football1234',
  'baseball1234',
  'sunshine1234',
  'princess1234',
  'trustno1trustno1',
  'superman1234',
  'starwars1234',
  'dragon123456',
  'master123456',
  'hello1234567',
  'freedom12345',
  'whatever1234',
  'p@ssw0rd1234',
  'passw0rd1234',
  'correcthorsebatterystaple',
]);

/** Why the password is refused, or null. */
export function passwordProblem(password: string, email: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `the password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `the password must have at most ${MAX_PASSWORD_LENGTH} characters`;
  const lower = password.toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) return 'this password is one of the most common ones: choose another';
  if (new Set(lower).size === 1) return 'the password must not be one character repeated';
  if (lower === email.toLowerCase() || lower === email.toLowerCase().split('@')[0]) return 'the password must not be the email address';
  return null;
}
