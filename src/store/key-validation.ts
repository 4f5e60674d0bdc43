// Validation of the administrative inputs to a KeyStore (CLI, console). Throws KeyStoreError with a
// message that names the field; returns the normalized value.
import { RedactionPolicyError, resolvePolicies } from '../clinical-text/redaction-classes.js';
import { BILLING_STATES, type BillingState, type Entitlement, ENTITLEMENTS, type Plan, PLANS } from '../domain/api-keys.js';
import { LANGUAGE_FAMILIES, LANGUAGE_TAG_SYNTAX } from '../domain/language-families.js';
import { hasRefusedCharacter } from '../domain/refused-characters.js';
import { KeyStoreError } from './key-store-error.js';

export const MAX_DICTIONARY_TERMS = 1000;
export const MAX_DICTIONARY_TERM_LENGTH = 96;
export const MIN_RETENTION_HOURS = 1;
export const MAX_RETENTION_HOURS = 72;
const TENANT = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

const invalid = (message: string) => new KeyStoreError('invalid_argument', message);

export function validateTenant(value: string): string {
  if (!TENANT.test(value)) {
    throw invalid('tenant must be 1 to 128 characters: letters, digits and _ . : - (starting with a letter or digit)');
  }
  return value;
}

export function validatePlan(value: string): Plan {
  if (!(PLANS as readonly string[]).includes(value)) throw invalid(`plan must be one of ${PLANS.join(', ')}`);
  return value as Plan;
}

export function validateEntitlements(values: readonly string[]): Entitlement[] {
  for (const value of values) {
    if (!(ENTITLEMENTS as readonly string[]).includes(value)) {
      throw invalid(`unknown entitlement '${value}': entitlements are ${ENTITLEMENTS.join(', ')}`);
    }
  }
  // Stored in the canonical order, once each, so listings compare equal.
  return ENTITLEMENTS.filter((entitlement) => values.includes(entitlement));
}

export function validateBillingState(value: string): BillingState {
  if (!(BILLING_STATES as readonly string[]).includes(value)) throw invalid(`billing state must be one of ${BILLING_STATES.join(', ')}`);
  return value as BillingState;
}

export function validateRetentionHours(value: number): number {
  if (!Number.isInteger(value) || value < MIN_RETENTION_HOURS || value > MAX_RETENTION_HOURS) {
    throw invalid(`retention hours must be an integer from ${MIN_RETENTION_HOURS} to ${MAX_RETENTION_HOURS}`);
  }
  return value;
}

/** Redaction policy names (classes or groups), once each in the order given; null or none: no standing redaction. */
export function validateRedactAlways(values: readonly string[] | null): string[] | null {
  if (values === null || values.length === 0) return null;
  const names = [...new Set(values.map((value) => value.trim()))];
  try {
    resolvePolicies(names);
  } catch (error) {
    if (!(error instanceof RedactionPolicyError)) throw error;
    throw invalid(`redaction policies not known: ${error.unknown.join(', ')} (use identifiers, health, all, or class names)`);
  }
  return names;
}

export function validateRateLimit(value: number | null): number | null {
  if (value === null) return null;
  if (!Number.isInteger(value) || value < 1 || value > 1_000_000) {
    throw invalid('rate limit must be an integer from 1 to 1000000 requests per minute');
  }
  return value;
}

/**
 * A key's default language: a supported family or regional tag (`en`, `en-GB`, `es-419`), stored
 * normalized (lowercase family, uppercase region). Unsupported families are refused here because
 * a request falls back to English when the stored default cannot be used.
 */
export function validateDefaultLanguage(value: string | null): string | null {
  if (value === null) return null;
  const match = LANGUAGE_TAG_SYNTAX.exec(value.trim());
  if (!match) throw invalid(`default language must be a tag like 'en', 'en-GB' or 'es-419'`);
  const family = validateLanguageFamily(match[1].toLowerCase(), 'default language');
  return match[2] ? `${family}-${match[2].toUpperCase()}` : family;
}

/** Dictionaries are kept per language family ('en'), which every regional tag of it shares. */
export function validateLanguageFamily(value: string, what = 'dictionary language'): string {
  if (!(LANGUAGE_FAMILIES as readonly string[]).includes(value)) {
    throw invalid(`${what} must be a supported language family: ${LANGUAGE_FAMILIES.join(', ')}`);
  }
  return value;
}

/**
 * Trimmed, deduplicated (ignoring case, first spelling kept, like request vocabulary) terms of 1 to
 * 96 characters, at most 1,000 of them.
 */
export function validateDictionaryTerms(values: readonly string[]): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  values.forEach((value, index) => {
    const term = value.trim();
    const where = `dictionary term ${index + 1}`;
    if (term.length === 0) throw invalid(`${where} is empty`);
    if ([...term].length > MAX_DICTIONARY_TERM_LENGTH) throw invalid(`${where} is longer than ${MAX_DICTIONARY_TERM_LENGTH} characters`);
    if (hasRefusedCharacter(term)) throw invalid(`${where} contains a control or bidirectional control character`);
    const folded = term.toLowerCase();
    if (seen.has(folded)) return;
    seen.add(folded);
    terms.push(term);
  });
  if (terms.length > MAX_DICTIONARY_TERMS) {
    throw invalid(`a dictionary holds at most ${MAX_DICTIONARY_TERMS} terms (got ${terms.length} distinct terms)`);
  }
  return terms;
}
