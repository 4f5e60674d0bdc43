// A key's standing choices over the words (docs/API.md "Smart format", "Redaction"): smart_format for
// requests that do not say (a request's own true or false wins), and redaction policies every
// transcript of the key gets whatever its request says, as a privacy officer sets them once for a
// clinic's integration. A request may add policies to the standing ones, never remove them.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { ClinicalTextFields } from './clinical-text-fields.js';

export type KeyTextDefaults = Pick<ApiKeyRecord, 'smartFormatDefault' | 'redactAlways'>;

/** `fields` as parsed from the request; `sent`: the request's own smart_format, to tell "not said" from false. */
export function withKeyTextDefaults(fields: ClinicalTextFields, sent: { smart_format?: unknown }, key: KeyTextDefaults): ClinicalTextFields {
  const said = sent.smart_format !== undefined && sent.smart_format !== null && sent.smart_format !== '';
  const smartFormat = said ? fields.smartFormat : key.smartFormatDefault;
  const redact = key.redactAlways === null ? fields.redact : [...new Set([...key.redactAlways, ...(fields.redact ?? [])])];
  return { ...fields, smartFormat, redact };
}

/** Whether the key redacts every transcript (a route that cannot redact must refuse it). */
export function redactsAlways(key: KeyTextDefaults): boolean {
  return key.redactAlways !== null;
}
