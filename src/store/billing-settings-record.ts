// The pure half of a BillingSettingsStore, shared by its implementations: validation of what the
// operator sets (a message naming the field, KeyStoreError like every administrative input) and
// the JSON the overrides are stored as.
import { BILLING_TERM_NAMES, type KeyBilling, MAX_PERIOD_START_DAY, type TermsPatch } from './billing-settings-store.js';
import { KeyStoreError } from './key-store-error.js';

const invalid = (message: string) => new KeyStoreError('invalid_argument', message);

function validAmount(name: string, value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw invalid(`${name} must be a whole non-negative amount or none`);
  return value;
}

/** The patch with its defined fields checked; unknown fields refused. */
export function validateTermsPatch(patch: TermsPatch): TermsPatch {
  const valid: TermsPatch = {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (!(BILLING_TERM_NAMES as readonly string[]).includes(name)) throw invalid(`unknown billing term '${name}'`);
    valid[name as keyof TermsPatch] = validAmount(name, value);
  }
  return valid;
}

export function validateCredit(value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw invalid('credit added must be a positive amount');
  return value;
}

export function validatePeriodStartDay(day: number): number {
  if (!Number.isInteger(day) || day < 1 || day > MAX_PERIOD_START_DAY) throw invalid(`the period start day must be 1 to ${MAX_PERIOD_START_DAY}`);
  return day;
}

/** Stored overrides (JSON text) read back; a field is present only when overridden. */
export function parseTermsPatch(text: string | null): TermsPatch {
  return text === null ? {} : validateTermsPatch(JSON.parse(text) as TermsPatch);
}

/** What a key's billing becomes after a change (the stores write the result). */
export function changedKeyBilling(current: KeyBilling, change: { overrides?: TermsPatch; clearOverrides?: boolean; addCreditMicros?: number }): KeyBilling {
  const base = change.clearOverrides ? {} : current.overrides;
  const overrides = { ...base, ...validateTermsPatch(change.overrides ?? {}) };
  const credit =
    change.addCreditMicros === undefined ? current.creditGrantedMicros : (current.creditGrantedMicros ?? 0) + validateCredit(change.addCreditMicros);
  return { overrides, creditGrantedMicros: credit };
}
