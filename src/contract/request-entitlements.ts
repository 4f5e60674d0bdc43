// Who may use what a request asks for: one decision for the upload, the job body and the realtime
// start. Each field's entitlement is declared with the field (request-fields.ts); this says when a
// request uses it: `language` only as `auto` (a tag or the key's default needs nothing), `patterns`
// once any is given.
import type { ApiKeyRecord, Entitlement } from '../domain/api-keys.js';
import { EntitlementMissing } from '../pipeline/pipeline-errors.js';
import { REQUEST_FIELDS } from './request-fields.js';

/** What a request asks for that an entitlement may govern. */
export interface EntitledUse {
  /** `language=auto`: the language detected per utterance. */
  autoLanguage?: boolean;
  patterns?: readonly string[];
}

const WHAT: Record<Entitlement, string> = { language_detection: 'automatic language detection', patterns: 'patterns' };

/** Throws EntitlementMissing (403) for the first use the key is not entitled to. */
export function requireEntitlements(use: EntitledUse, key: Pick<ApiKeyRecord, 'entitlements'>): void {
  const needed: Entitlement[] = [];
  if (use.autoLanguage) needed.push(REQUEST_FIELDS.language.entitlement);
  if ((use.patterns?.length ?? 0) > 0) needed.push(REQUEST_FIELDS.patterns.entitlement);
  const missing = needed.find((entitlement) => !key.entitlements.includes(entitlement));
  if (missing !== undefined) throw new EntitlementMissing(`this key is not entitled to ${WHAT[missing]}`);
}
