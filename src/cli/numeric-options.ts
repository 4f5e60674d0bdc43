// Numeric command-line options, read and range-checked the same way by every command.
import { UsageError } from './usage-error.js';

/** An optional integer option within min..max; a UsageError (exit 2) names the option otherwise. */
export function optionalInteger(raw: string | undefined, flag: string, min: number, max: number): number | undefined {
  return raw === undefined ? undefined : boundedNumber(raw, flag, min, max, true);
}

/** A number (an integer when `integer`) within min..max. */
export function boundedNumber(raw: string, flag: string, min: number, max: number, integer: boolean): number {
  const value = Number(raw);
  const ok = raw.trim() !== '' && (integer ? Number.isInteger(value) : Number.isFinite(value)) && value >= min && value <= max;
  if (!ok) throw new UsageError(`${flag} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
  return value;
}
