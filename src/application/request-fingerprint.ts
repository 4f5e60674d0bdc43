// What makes two requests "the same content" for an Idempotency-Key: a retry must hash the same
// whatever the order its fields or JSON keys came in, requests of different routes never match, and
// neither do requests of different API keys (keyBoundFingerprint).
import { createHash } from 'node:crypto';

/** A direct upload: the audio's own hash and the form fields, in name order. */
export function directUploadFingerprint(upload: { sha256: string; fields: Record<string, string> }): string {
  return sha256Hex({ route: 'direct', sha256: upload.sha256, fields: Object.entries(upload.fields).sort() });
}

/** A job creation: its JSON body with object keys sorted. */
export function jobCreationFingerprint(body: unknown): string {
  return sha256Hex({ route: 'jobs', body: canonical(body) });
}

/**
 * A request's fingerprint as it is claimed and stored: bound to the API key that sent it. The records
 * are the tenant's (one Idempotency-Key per tenant), but an answer names a job that only its key may
 * see, so the same content sent by another key of the tenant is other content (409, never the answer).
 */
export function keyBoundFingerprint(keyId: string, fingerprint: string): string {
  return sha256Hex({ key: keyId, fingerprint });
}

function sha256Hex(content: unknown): string {
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

/** JSON with object keys sorted, so the same request fingerprints the same whatever the key order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
