// svc-stt console-users invite --tenant T --email E | list --tenant T | require-totp --tenant T [--off]:
// the developer console's accounts. An invite prints a one-time link (valid 24 hours) for the invitee
// to set a password; inviting an existing account's email again is how a forgotten password is reset.
// An invite to a tenant that has no key yet (a typo makes a new, empty one) says so on stderr, naming
// the tenants that have keys.
// require-totp makes a second factor a must for the tenant's accounts (each is sent to turn it on
// before any other page), --off makes it each account's choice again; reset-totp turns one account's
// off (a lost phone with its recovery codes: the next sign-in takes the password alone, or is sent to
// set TOTP up again where the tenant requires it).
import { loadConsoleUrl } from '../config/load-config.js';
import { ConsoleAccountError } from '../store/console-account-store.js';
import { withConsoleInviteStores, withConsoleSecondFactors } from './admin-stores.js';
import type { CommandOutput } from './command-output.js';
import { parseCommandArgs } from './parse-command-args.js';
import { dispatch, type Subcommands } from './subcommands.js';
import { textTable } from './text-table.js';
import { UsageError } from './usage-error.js';

export const CONSOLE_USERS_USAGE = `usage: npx svc-stt console-users invite --tenant T --email E [--json]   (a one-time link, valid 24 h)
       npx svc-stt console-users list --tenant T [--json]
       npx svc-stt console-users require-totp --tenant T [--off] [--json]   (a second factor for every account of T)
       npx svc-stt console-users reset-totp --email E   (turns an account's TOTP off: a lost phone)`;

export const INVITE_TTL_MS = 24 * 3_600_000;

export async function runConsoleUsersCommand(argv: string[], out: CommandOutput = process.stdout): Promise<void> {
  return dispatch(CONSOLE_USERS_SUBCOMMANDS, argv, out, CONSOLE_USERS_USAGE);
}

export const CONSOLE_USERS_SUBCOMMANDS: Subcommands = { invite, list, 'require-totp': requireTotp, 'reset-totp': resetTotp };

async function invite(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, CONSOLE_USERS_USAGE, {
    tenant: { type: 'string' },
    email: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  if (positionals.length > 0 || !values.tenant || !values.email)
    throw new UsageError(`console-users invite needs --tenant and --email\n${CONSOLE_USERS_USAGE}`);
  const { tenant, email } = values;
  const { created, keyTenants } = await withConsoleInviteStores(async ({ accounts, keys }) => ({
    created: await accounts.createInvite(tenant, email, Date.now(), INVITE_TTL_MS),
    keyTenants: [...new Set((await keys.list()).map((key) => key.tenant))],
  })).catch((error: unknown) => {
    throw error instanceof ConsoleAccountError ? new UsageError(error.message) : error;
  });
  // A tenant is only a name: a mistyped one would be a new, empty console. Said on stderr, so that
  // --json's output stays exactly {"link","expires_at"}.
  if (!keyTenants.includes(tenant)) process.stderr.write(noKeyNote(tenant, keyTenants));
  const link = `${loadConsoleUrl(process.env)}/invite/${created.token}`;
  const expires = new Date(created.expiresAtMs).toISOString();
  if (values.json) {
    out.write(`${JSON.stringify({ link, expires_at: expires })}\n`);
    return;
  }
  out.write(`Invited ${email.trim().toLowerCase()} to the console of ${tenant}. The link works once, until ${expires}; it is shown only now:\n\n  ${link}\n\n`);
}

/** The most tenants a note names. */
const NAMED_TENANTS = 10;

/** Says that `tenant` has no key yet and names the tenants that have one. */
export function noKeyNote(tenant: string, keyTenants: readonly string[]): string {
  const named = keyTenants.slice(0, NAMED_TENANTS).join(', ');
  const more = keyTenants.length > NAMED_TENANTS ? ` and ${keyTenants.length - NAMED_TENANTS} more` : '';
  const existing = keyTenants.length === 0 ? 'no tenant has a key yet' : `the tenants with keys are ${named}${more} (\`npx svc-stt keys list\`)`;
  return (
    `svc-stt: note: tenant ${tenant} has no API key yet, so this console starts empty; ${existing}. ` +
    `If that is the wrong tenant, invite again with the right --tenant; otherwise \`npx svc-stt keys create --tenant ${tenant}\` gives it a key.\n`
  );
}

async function list(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, CONSOLE_USERS_USAGE, { tenant: { type: 'string' }, json: { type: 'boolean', default: false } });
  if (positionals.length > 0 || !values.tenant) throw new UsageError(`console-users list needs --tenant\n${CONSOLE_USERS_USAGE}`);
  const tenant = values.tenant;
  const rows = await withConsoleSecondFactors(async ({ accounts, secondFactors }) => {
    const users = await accounts.listUsers(tenant);
    return Promise.all(
      users.map(async (u) => ({ id: u.id, email: u.email, created: new Date(u.createdAtMs).toISOString(), totp: await secondFactors.totpEnabled(u.id) })),
    );
  });
  out.write(
    values.json
      ? `${JSON.stringify(rows)}\n`
      : textTable(
          ['id', 'email', 'created', 'totp'],
          rows.map((r) => [r.id, r.email, r.created, r.totp ? 'on' : 'off']),
        ),
  );
}

async function requireTotp(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, CONSOLE_USERS_USAGE, {
    tenant: { type: 'string' },
    off: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  });
  if (positionals.length > 0 || !values.tenant) throw new UsageError(`console-users require-totp needs --tenant\n${CONSOLE_USERS_USAGE}`);
  const tenant = values.tenant;
  const required = !values.off;
  const { accounts, withTotp } = await withConsoleSecondFactors(async ({ accounts, secondFactors }) => {
    await secondFactors.setTotpRequired(tenant, required, Date.now());
    const users = await accounts.listUsers(tenant);
    const enabled = await Promise.all(users.map((u) => secondFactors.totpEnabled(u.id)));
    return { accounts: users.length, withTotp: enabled.filter(Boolean).length };
  });
  if (values.json) {
    out.write(`${JSON.stringify({ tenant, totp_required: required, accounts, accounts_with_totp: withTotp })}\n`);
    return;
  }
  const standing = `${withTotp} of its ${accounts} console account${accounts === 1 ? ' has' : 's have'} it on`;
  out.write(
    required
      ? `The console of ${tenant} now requires TOTP: ${standing}; the others are sent to turn it on before any other page.\n`
      : `The console of ${tenant} no longer requires TOTP (${standing}): each account chooses.\n`,
  );
}

async function resetTotp(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, CONSOLE_USERS_USAGE, { email: { type: 'string' } });
  if (positionals.length > 0 || !values.email) throw new UsageError(`console-users reset-totp needs --email\n${CONSOLE_USERS_USAGE}`);
  const email = values.email;
  const account = await withConsoleSecondFactors(async ({ accounts, secondFactors }) => {
    const record = await accounts.signInRecord(email);
    if (!record) return null;
    // The account's sessions stay, unlike when TOTP is turned on (which ends the others): removing the
    // factor makes no session less trusted than it was, since each live one passed the code (those
    // from before it was on ended then), and the member who lost the phone may still be signed in on a
    // computer, where they turn it on again. A session feared stolen is ended by "Sign out everywhere",
    // or by a reset by invite, which ends every session.
    return { ...record, hadTotp: await secondFactors.removeTotp(record.id) };
  });
  if (!account) throw new UsageError(`no console account has the email ${email.trim().toLowerCase()}`);
  out.write(
    account.hadTotp
      ? `TOTP of ${account.email} (${account.tenant}) is off, with its recovery codes: the next sign-in takes the password alone.\n`
      : `${account.email} (${account.tenant}) had no TOTP: nothing changed.\n`,
  );
}
