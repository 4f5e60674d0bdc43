// Billing amounts on the command line: people type hours and currency units; the store keeps
// milliseconds and millionths. `none` (or `unlimited` for allowances) stands for null.
import { MICROS_PER_UNIT, MS_PER_HOUR } from '../billing/billing-terms.js';
import type { TermsPatch } from '../store/billing-settings-store.js';
import { UsageError } from './usage-error.js';

const DECIMAL = /^\d+(\.\d{1,6})?$/;

function decimal(raw: string, flag: string): number {
  if (!DECIMAL.test(raw)) throw new UsageError(`${flag} must be a non-negative number (up to 6 decimals) or none`);
  return Number(raw);
}

export function hoursFlag(raw: string, flag: string): number | null {
  return raw === 'none' || raw === 'unlimited' ? null : Math.round(decimal(raw, flag) * MS_PER_HOUR);
}

export function moneyFlag(raw: string, flag: string): number | null {
  return raw === 'none' ? null : Math.round(decimal(raw, flag) * MICROS_PER_UNIT);
}

/** The parseArgs options of the terms a plan or a key can set. */
export const TERM_OPTIONS = {
  'batch-hours': { type: 'string' },
  'realtime-hours': { type: 'string' },
  'batch-price': { type: 'string' },
  'realtime-price': { type: 'string' },
  'spend-cap': { type: 'string' },
  'realtime-session-hours': { type: 'string' },
} as const;

export const TERM_FLAGS_USAGE =
  '[--batch-hours H|unlimited] [--realtime-hours H|unlimited] [--batch-price P|none] [--realtime-price P|none] [--spend-cap C|none]\n' +
  '                        [--realtime-session-hours H|unlimited]';

export function termsPatchOf(values: Partial<Record<keyof typeof TERM_OPTIONS, string>>): TermsPatch {
  const patch: TermsPatch = {};
  if (values['batch-hours'] !== undefined) patch.batchIncludedMs = hoursFlag(values['batch-hours'], '--batch-hours');
  if (values['realtime-hours'] !== undefined) patch.realtimeIncludedMs = hoursFlag(values['realtime-hours'], '--realtime-hours');
  if (values['batch-price'] !== undefined) patch.batchPriceMicros = moneyFlag(values['batch-price'], '--batch-price');
  if (values['realtime-price'] !== undefined) patch.realtimePriceMicros = moneyFlag(values['realtime-price'], '--realtime-price');
  if (values['spend-cap'] !== undefined) patch.spendCapMicros = moneyFlag(values['spend-cap'], '--spend-cap');
  if (values['realtime-session-hours'] !== undefined) patch.realtimeSessionMaxMs = hoursFlag(values['realtime-session-hours'], '--realtime-session-hours');
  return patch;
}

export const hours = (ms: number | null) => (ms === null ? 'unlimited' : (ms / MS_PER_HOUR).toFixed(4).replace(/\.?0+$/, '') || '0');
export const money = (micros: number | null) => (micros === null ? 'none' : (micros / MICROS_PER_UNIT).toFixed(6).replace(/0{1,4}$/, ''));
export const seconds = (ms: number) => (ms / 1000).toFixed(3);
