// The request fields that shape the words after recognition (docs/API.md "Smart format", "Redaction"):
// `smart_format`, `redact` (comma-separated policy names: classes or the groups identifiers, health,
// all), `redact_substitution`, `redact_audio` (a job's redacted copy of its audio) and
// `redact_audio_fill` (silence or a tone over the redactions), `redact_output` (whether a job keeps
// the unredacted transcript beside the redacted one: AWS's RedactionOutput). One reader for the upload form (strings) and the job body (JSON), so
// both say the same of the same value. Messages name the field, never the value sent.
import { REDACTION_FILLS, type RedactionFill } from '../audio/index.js';
import { RedactionPolicyError, resolvePolicies, type Substitution, SUBSTITUTIONS } from '../clinical-text/redaction-classes.js';
import { InvalidRequestField, UnprocessableRequest } from '../pipeline/pipeline-errors.js';

/** `redacted`: only the redacted transcript exists; `redacted_and_unredacted`: a job keeps the unredacted one too. */
export const REDACT_OUTPUTS = ['redacted', 'redacted_and_unredacted'] as const;
export type RedactOutput = (typeof REDACT_OUTPUTS)[number];

export interface ClinicalTextFields {
  smartFormat: boolean;
  /** The policy names asked for; null: no redaction. */
  redact: string[] | null;
  redactSubstitution: Substitution;
  /** `confidence_threshold`: words and segments below it are marked `low_confidence`; null: none. */
  confidenceThreshold: number | null;
  /** Keep a copy of a job's audio silenced over the redactions (src/jobs/job-redacted-audio.ts). */
  redactAudio: boolean;
  /** What the copy has over each redaction: silence or a 1 kHz tone. */
  redactAudioFill: RedactionFill;
  /** Whether a job keeps the unredacted transcript beside the redacted result (src/jobs/job-unredacted.ts). */
  redactOutput: RedactOutput;
}

export const NO_CLINICAL_TEXT: ClinicalTextFields = {
  smartFormat: false,
  redact: null,
  redactSubstitution: 'entity_name',
  confidenceThreshold: null,
  redactAudio: false,
  redactAudioFill: 'silence',
  redactOutput: 'redacted',
};

/** The fields as sent, unread. */
export interface ClinicalTextValues {
  smart_format?: unknown;
  redact?: unknown;
  redact_substitution?: unknown;
  confidence_threshold?: unknown;
  redact_audio?: unknown;
  redact_audio_fill?: unknown;
  redact_output?: unknown;
}

/** The fields as sent: form strings (`form`), or JSON values (a job body, a realtime start). */
export function parseClinicalTextFields(values: ClinicalTextValues, encoding: 'form' | 'json'): ClinicalTextFields {
  const smartFormat = booleanValue(values.smart_format, 'smart_format', encoding);
  const redact = policies(values.redact);
  const given = values.redact_substitution !== undefined && values.redact_substitution !== null && values.redact_substitution !== '';
  if (given && redact === null) throw new UnprocessableRequest('redact_substitution needs redact');
  if (given && !(SUBSTITUTIONS as readonly unknown[]).includes(values.redact_substitution)) {
    throw new InvalidRequestField(`redact_substitution must be one of: ${SUBSTITUTIONS.join(', ')}`);
  }
  const redactAudio = booleanValue(values.redact_audio, 'redact_audio', encoding);
  if (redactAudio && redact === null) throw new UnprocessableRequest('redact_audio needs redact');
  const fill = values.redact_audio_fill;
  const fillGiven = fill !== undefined && fill !== null && fill !== '';
  if (fillGiven && !(REDACTION_FILLS as readonly unknown[]).includes(fill)) {
    throw new InvalidRequestField(`redact_audio_fill must be one of: ${REDACTION_FILLS.join(', ')}`);
  }
  if (fillGiven && !redactAudio) throw new UnprocessableRequest('redact_audio_fill needs redact_audio');
  const output = values.redact_output;
  const outputGiven = output !== undefined && output !== null && output !== '';
  if (outputGiven && !(REDACT_OUTPUTS as readonly unknown[]).includes(output)) {
    throw new InvalidRequestField(`redact_output must be one of: ${REDACT_OUTPUTS.join(', ')}`);
  }
  if (outputGiven && redact === null) throw new UnprocessableRequest('redact_output needs redact');
  return {
    smartFormat,
    redact,
    redactSubstitution: given ? (values.redact_substitution as Substitution) : 'entity_name',
    confidenceThreshold: threshold(values.confidence_threshold, encoding),
    redactAudio,
    redactAudioFill: fillGiven ? (fill as RedactionFill) : 'silence',
    redactOutput: outputGiven ? (output as RedactOutput) : 'redacted',
  };
}

/** A probability strictly between 0 and 1 (a form sends it as a decimal string). */
function threshold(value: unknown, encoding: 'form' | 'json'): number | null {
  if (value === undefined || value === null || (encoding === 'form' && value === '')) return null;
  const number = encoding === 'form' && typeof value === 'string' && /^\s*[0-9.]+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0 || number >= 1) {
    throw new InvalidRequestField('confidence_threshold must be a number between 0 and 1');
  }
  return number;
}

function booleanValue(value: unknown, field: string, encoding: 'form' | 'json'): boolean {
  if (value === undefined || value === null || (encoding === 'form' && value === '')) return false;
  if (value === (encoding === 'form' ? 'true' : true)) return true;
  if (value === (encoding === 'form' ? 'false' : false)) return false;
  throw new InvalidRequestField(`${field} must be true or false`);
}

function policies(value: unknown): string[] | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new InvalidRequestField('redact must be a string of comma-separated policy names');
  const names = value.split(',').map((name) => name.trim());
  if (names.some((name) => name === '')) throw new UnprocessableRequest('redact must name policies separated by commas, none empty');
  try {
    resolvePolicies(names);
  } catch (error) {
    if (!(error instanceof RedactionPolicyError)) throw error;
    // The refusal lists what is known; the names sent are the client's and are not echoed.
    throw new UnprocessableRequest(`redact has ${error.unknown.length === 1 ? 'a policy' : 'policies'} not known: ${KNOWN}`);
  }
  return [...new Set(names)];
}

const KNOWN = 'use identifiers, health, all, or class names (docs/API.md "Redaction")';
