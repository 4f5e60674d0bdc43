// svc-stt keys create | list | revoke ID | rotate ID | update ID: API key administration on the service database.
import { MICROS_PER_UNIT } from '../billing/billing-terms.js';
import { termsJson } from '../billing/usage-report-json.js';
import { type BillingState, DEFAULT_ENTITLEMENTS, type Entitlement, type Plan } from '../domain/api-keys.js';
import { LONGEST_ROTATION_OVERLAP_HOURS } from '../domain/rotation-overlap.js';
import { type KeyRevocation, revokeKey as revokeKeyAndClose } from '../jobs/key-revocation.js';
import { keyNotFound } from '../store/key-record.js';
import { type KeyPatch } from '../store/key-store.js';
import { withBillingSettings, withKeyRevocationStores, withKeyStore } from './admin-stores.js';
import { moneyFlag, TERM_FLAGS_USAGE, TERM_OPTIONS, termsPatchOf } from './billing-amounts.js';
import type { CommandOutput } from './command-output.js';
import { keyListing, keyTable } from './key-listing.js';
import { parseCommandArgs } from './parse-command-args.js';
import { dispatch, type Subcommands } from './subcommands.js';
import { UsageError } from './usage-error.js';

const USAGE = `usage: npx svc-stt keys create [--json] [--tenant T] [--plan P] [--entitlement E ...] [--no-language-detection]
                            [--default-language L] [--retention-hours N] [--rate-limit N]
                            [--smart-format on|off] [--redact-always POLICIES]
       npx svc-stt keys list [--json]
       npx svc-stt keys revoke ID [--json]
       npx svc-stt keys rotate ID --overlap-hours H [--json]   (H: 0 to ${LONGEST_ROTATION_OVERLAP_HOURS}; 0 revokes the old key now)
       npx svc-stt keys update ID [--json] [--plan P] [--billing active|paused] [--entitlement E ...|none]
                            [--retention-hours N] [--default-language L|none] [--rate-limit N|none]
                            [--smart-format on|off] [--redact-always POLICIES|none]
                            ${TERM_FLAGS_USAGE}
                            [--add-credit C] [--clear-terms]    (the key's own billing terms over its plan's)`;

/** `out` is where results go (stdout unless a test captures them); errors are thrown. */
export async function runKeysCommand(argv: string[], out: CommandOutput = process.stdout): Promise<void> {
  return dispatch(KEYS_SUBCOMMANDS, argv, out, USAGE);
}

export const KEYS_SUBCOMMANDS: Subcommands = { create: createKey, list: listKeys, revoke: revokeKey, rotate: rotateKey, update: updateKey };

async function createKey(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USAGE, {
    json: { type: 'boolean', default: false },
    tenant: { type: 'string' },
    plan: { type: 'string' },
    entitlement: { type: 'string', multiple: true },
    'no-language-detection': { type: 'boolean', default: false },
    'default-language': { type: 'string' },
    'retention-hours': { type: 'string' },
    'rate-limit': { type: 'string' },
    'smart-format': { type: 'string' },
    'redact-always': { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`keys create takes no arguments\n${USAGE}`);
  // --entitlement adds to what every key gets; --no-language-detection takes that default away.
  const entitlements = new Set<string>([...DEFAULT_ENTITLEMENTS, ...(values.entitlement ?? [])]);
  if (values['no-language-detection']) entitlements.delete('language_detection');
  const { key, record } = await withKeyStore((keys) =>
    keys.create({
      tenant: values.tenant,
      plan: values.plan as Plan | undefined,
      entitlements: [...entitlements] as Entitlement[],
      defaultLanguage: values['default-language'],
      retentionHours: integerFlag(values['retention-hours'], '--retention-hours'),
      rateLimitPerMinute: integerFlag(values['rate-limit'], '--rate-limit'),
      smartFormatDefault: onOffFlag(values['smart-format'], '--smart-format'),
      redactAlways: policiesFlag(values['redact-always']),
    }),
  );
  if (values.json) {
    // The interface scripts rely on (docs/DESIGN.md "Interfaces that scripts rely on"): exactly these three fields, one line.
    out.write(`${JSON.stringify({ key, id: record.id, tenant: record.tenant })}\n`);
    return;
  }
  out.write(
    `Created API key ${record.id} for tenant ${record.tenant} (plan ${record.plan}, ` +
      `entitlements: ${record.entitlements.join(', ') || 'none'}).\n` +
      `The key is shown only this once; store it now:\n\n  ${key}\n\n`,
  );
}

async function listKeys(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USAGE, { json: { type: 'boolean', default: false } });
  if (positionals.length > 0) throw new UsageError(`keys list takes no arguments\n${USAGE}`);
  const records = await withKeyStore((keys) => keys.list());
  out.write(values.json ? `${JSON.stringify(records.map(keyListing))}\n` : keyTable(records));
}

/**
 * Revokes the key and closes what it left open, directly in the data folder (a running server sees
 * it on its next read): its pending upload slots fail and their audio is deleted, its pending webhook
 * events are cancelled (src/jobs/key-revocation.ts says why).
 */
async function revokeKey(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USAGE, { json: { type: 'boolean', default: false } });
  const id = singleId(positionals, 'revoke');
  const outcome = await withKeyRevocationStores((stores) => revokeKeyAndClose(stores, id, Date.now()));
  const { revoked, record } = outcome;
  if (values.json) {
    out.write(`${JSON.stringify({ ...keyListing(record), ...closedJson(outcome) })}\n`);
    return;
  }
  out.write(`${revoked ? `revoked ${id}` : `${id} was already revoked (${record.revokedAt})`}\n${closedLines(outcome)}`);
}

/** What a revocation closed, for `--json`. */
function closedJson({ slotsClosed, filesDeleted, webhookEventsCancelled }: KeyRevocation) {
  return { closed_upload_slots: slotsClosed, deleted_uploads: filesDeleted, cancelled_webhook_events: webhookEventsCancelled };
}

/** What a revocation closed, for people: a line for each kind of thing, none when it closed nothing. */
function closedLines({ slotsClosed, filesDeleted, webhookEventsCancelled }: KeyRevocation): string {
  const slots = slotsClosed > 0 ? `closed ${slotsClosed} pending upload slot(s) and deleted ${filesDeleted} uploaded file(s)\n` : '';
  const events = webhookEventsCancelled > 0 ? `cancelled ${webhookEventsCancelled} pending webhook event(s)\n` : '';
  return slots + events;
}

/**
 * Rotation as the console's Rotate does it (KeyStore.rotate): a new key with the old one's terms,
 * shown once, and the old key's revocation scheduled at the overlap's end (refused from then on by
 * every process; a worker's sweeper closes what it left open). An overlap of 0 revokes it now, with
 * what `keys revoke` closes.
 */
async function rotateKey(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USAGE, { json: { type: 'boolean', default: false }, 'overlap-hours': { type: 'string' } });
  const id = singleId(positionals, 'rotate');
  const overlapHours = overlapHoursFlag(values['overlap-hours']);
  const now = Date.now();
  const revokeAt = new Date(now + overlapHours * MS_PER_HOUR);
  const { key, record, rotated } = await withKeyStore((keys) => keys.rotate(id, revokeAt));
  const revocation = overlapHours === 0 ? await withKeyRevocationStores((stores) => revokeKeyAndClose(stores, id, now)) : null;
  if (values.json) {
    // The rotated key as `keys list --json` shows it; revoked now, with what `keys revoke --json` adds.
    const old = revocation ? { ...keyListing(revocation.record), ...closedJson(revocation) } : keyListing(rotated);
    out.write(`${JSON.stringify({ key, id: record.id, tenant: record.tenant, rotated: old })}\n`);
    return;
  }
  const when = revocation ? 'is revoked now' : `works until ${revokeAt.toISOString()}, then it is revoked`;
  out.write(
    `Rotated API key ${id}: the new key ${record.id} (tenant ${record.tenant}, plan ${record.plan}) works now; ${id} ${when}.\n` +
      `The new key is shown only this once; store it now:\n\n  ${key}\n\n${revocation ? closedLines(revocation) : ''}`,
  );
}

async function updateKey(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USAGE, {
    json: { type: 'boolean', default: false },
    plan: { type: 'string' },
    billing: { type: 'string' },
    entitlement: { type: 'string', multiple: true },
    'retention-hours': { type: 'string' },
    'default-language': { type: 'string' },
    'rate-limit': { type: 'string' },
    'smart-format': { type: 'string' },
    'redact-always': { type: 'string' },
    ...TERM_OPTIONS,
    'add-credit': { type: 'string' },
    'clear-terms': { type: 'boolean', default: false },
  });
  const id = singleId(positionals, 'update');
  const patch: KeyPatch = {};
  if (values.plan !== undefined) patch.plan = values.plan as Plan;
  if (values.billing !== undefined) patch.billingState = values.billing as BillingState;
  if (values.entitlement !== undefined) {
    // Here the list is the key's whole set (`none` alone: no entitlements).
    const list = values.entitlement;
    if (list.includes('none') && list.length > 1) throw new UsageError('--entitlement none cannot be combined with other entitlements');
    patch.entitlements = (list[0] === 'none' ? [] : list) as Entitlement[];
  }
  if (values['retention-hours'] !== undefined) patch.retentionHours = integerFlag(values['retention-hours'], '--retention-hours');
  if (values['default-language'] !== undefined) {
    patch.defaultLanguage = values['default-language'] === 'none' ? null : values['default-language'];
  }
  if (values['rate-limit'] !== undefined) {
    patch.rateLimitPerMinute = values['rate-limit'] === 'none' ? null : integerFlag(values['rate-limit'], '--rate-limit');
  }
  if (values['smart-format'] !== undefined) patch.smartFormatDefault = onOffFlag(values['smart-format'], '--smart-format');
  if (values['redact-always'] !== undefined) patch.redactAlways = policiesFlag(values['redact-always']);
  const overrides = termsPatchOf(values);
  const credit = values['add-credit'] === undefined ? null : moneyFlag(values['add-credit'], '--add-credit');
  const billingChange = {
    ...(Object.keys(overrides).length > 0 ? { overrides } : {}),
    ...(values['clear-terms'] ? { clearOverrides: true } : {}),
    ...(credit !== null ? { addCreditMicros: credit } : {}),
  };
  const changesBilling = Object.keys(billingChange).length > 0;
  if (Object.keys(patch).length === 0 && !changesBilling) throw new UsageError(`keys update: nothing to change\n${USAGE}`);
  const record = Object.keys(patch).length > 0 ? await withKeyStore((keys) => keys.update(id, patch)) : await withKeyStore((keys) => keys.get(id));
  if (record === null) throw keyNotFound(id);
  const billing = await withBillingSettings((settings) => (changesBilling ? settings.updateKey(id, billingChange) : settings.keyBilling(id)));
  const billingJson = {
    terms: termsJson(billing.overrides),
    credit_granted: billing.creditGrantedMicros === null ? null : billing.creditGrantedMicros / MICROS_PER_UNIT,
  };
  if (values.json) out.write(`${JSON.stringify({ ...keyListing(record), billing: billingJson })}\n`);
  else out.write(`updated ${id}\n${keyTable([record])}${changesBilling ? `billing terms over the plan's: ${JSON.stringify(billingJson)}\n` : ''}`);
}

function onOffFlag(value: string | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw new UsageError(`${flag} takes on or off`);
  return value === 'on';
}

/** Comma-separated policy names (the store checks them); `none`: no standing redaction. */
function policiesFlag(value: string | undefined): string[] | null | undefined {
  if (value === undefined) return undefined;
  return value === 'none' ? null : value.split(',');
}

function singleId(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`keys ${command} takes one key id (key_...)\n${USAGE}`);
  return positionals[0];
}

const MS_PER_HOUR = 3_600_000;

function overlapHoursFlag(raw: string | undefined): number {
  const hours = integerFlag(raw, '--overlap-hours');
  if (hours === undefined) throw new UsageError(`keys rotate: --overlap-hours is required (0 revokes the old key now)\n${USAGE}`);
  if (hours > LONGEST_ROTATION_OVERLAP_HOURS) throw new UsageError(`--overlap-hours must be from 0 to ${LONGEST_ROTATION_OVERLAP_HOURS}`);
  return hours;
}

function integerFlag(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`${flag} must be a whole number`);
  return Number(raw);
}
