// A key's standing choices over the words (docs/API.md "Smart format", "Redaction"): smart_format for
// requests that do not say (a request's own true or false wins), and redaction policies every
// transcript of the key gets whatever its request says, as a privacy officer sets them once for a
// clinic's integration. A request may add policies to the standing ones, never remove them.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { UnprocessableRequest } from '../pipeline/pipeline-errors.js';
import type { ClinicalTextFields } from './clinical-text-fields.js';

export type KeyTextDefaults = Pick<ApiKeyRecord, 'smartFormatDefault' | 'redactAlways'>;

/**
 * The request's clinical-text fields as sent (`form` strings or `json` values) with the key's standing
 * choices in: read by parseClinicalTextFields afterwards, so a standing redaction is a `redact` like a
 * requested one (redact_audio and redact_output may lean on it).
 */
export function withKeyTextDefaults<T extends { smart_format?: unknown; redact?: unknown }>(values: T, key: KeyTextDefaults, encoding: 'form' | 'json'): T {
  const said = values.smart_format !== undefined && values.smart_format !== null && values.smart_format !== '';
  const smartFormat = said || !key.smartFormatDefault ? {} : { smart_format: encoding === 'form' ? 'true' : true };
  if (key.redactAlways === null) return { ...values, ...smartFormat };
  // A request's own policies that are not a string are left for the reader to refuse.
  const asked = typeof values.redact === 'string' && values.redact !== '' ? values.redact.split(',') : [];
  const redact = values.redact === undefined || values.redact === null || typeof values.redact === 'string' ? [...key.redactAlways, ...asked] : null;
  return { ...values, ...smartFormat, ...(redact ? { redact: [...new Set(redact.map((p) => p.trim()))].join(',') } : {}) };
}

/** What a key with standing redaction may not have: token texts (they spell the words), an unredacted copy. */
export function refuseUnredactedForKey(fields: Pick<ClinicalTextFields, 'redactOutput'>, key: KeyTextDefaults, logprobs = false): void {
  if (!redactsAlways(key)) return;
  const standing = 'this key redacts every transcript (its standing redaction)';
  if (logprobs) throw new UnprocessableRequest(`${standing}, and include[]=logprobs cannot be redacted`);
  if (fields.redactOutput === 'redacted_and_unredacted') throw new UnprocessableRequest(`${standing}: redact_output must be redacted`);
}

/** Whether the key redacts every transcript (a route that cannot redact must refuse it). */
export function redactsAlways(key: KeyTextDefaults): boolean {
  return key.redactAlways !== null;
}
