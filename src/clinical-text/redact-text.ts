// redactText: a text with the identifiers of the chosen classes replaced, and where each was (character
// offsets into the input, JavaScript string indices). Never the redacted text itself.
import { detectAges } from './detect-ages.js';
import { detectContact } from './detect-contact.js';
import { detectCuedValues } from './detect-cued-values.js';
import { detectDates } from './detect-dates.js';
import { detectHealth } from './detect-health.js';
import { detectNames } from './detect-names.js';
import { detectNumbers } from './detect-numbers.js';
import { detectPlaces } from './detect-places.js';
import { type RedactionClass, resolvePolicies, type Substitution, substitutionFor } from './redaction-classes.js';
import { type Candidate, type RedactionEntity, settle } from './redaction-spans.js';
import { analyse } from './text-analysis.js';

export interface RedactOptions {
  /** Class or group names (redaction-classes.ts); default `identifiers`, every identifier class. */
  policies?: readonly string[];
  /** `entity_name` (default: `[PERSON_NAME]`) or `hash` (`####`). */
  substitution?: Substitution;
}

export interface RedactedText {
  text: string;
  entities: RedactionEntity[];
}

const DETECTORS = [detectContact, detectDates, detectCuedValues, detectAges, detectNumbers, detectPlaces, detectNames];

/** The entities of `text` of the selected classes, in order, not overlapping. */
export function findEntities(text: string, classes: ReadonlySet<RedactionClass>): RedactionEntity[] {
  const a = analyse(text);
  const candidates: Candidate[] = DETECTORS.flatMap((detect) => detect(a));
  if ([...classes].some((c) => c === 'medication' || c === 'medical_condition' || c === 'medical_procedure')) candidates.push(...detectHealth(a));
  // Settled over every class, then filtered: a date kept by the policy still stops its digits being read as a phone number.
  return settle(candidates, text).filter((e) => classes.has(e.type));
}

/** Throws RedactionPolicyError for an unknown policy name. */
export function redactText(text: string, options: RedactOptions = {}): RedactedText {
  const entities = findEntities(text, resolvePolicies(options.policies));
  return { text: substitute(text, entities, options.substitution ?? 'entity_name'), entities };
}

export function substitute(text: string, entities: readonly RedactionEntity[], substitution: Substitution): string {
  let out = '';
  let at = 0;
  for (const e of entities) {
    out += text.slice(at, e.start) + substitutionFor(e.type, substitution);
    at = e.end;
  }
  return out + text.slice(at);
}
