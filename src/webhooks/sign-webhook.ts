// The `webhook-signature` header value (contract "Webhook" rule 4, the Standard Webhooks scheme).
// The body is signed as the exact bytes sent: re-serialising JSON would break receivers' checks.
import { createHmac } from 'node:crypto';

/** `v1,` + base64(HMAC-SHA256(key, `${id}.${timestampSeconds}.${rawBody}`)), over raw bytes. */
export function webhookSignature(key: Buffer, id: string, timestampSeconds: number, body: Buffer): string {
  if (!Number.isSafeInteger(timestampSeconds)) throw new RangeError('the webhook timestamp must be whole Unix seconds');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.`, 'utf8').update(body).digest('base64');
  return `v1,${mac}`;
}

/**
 * The header with one `v1,` signature per key, space-separated, in the order given (Standard Webhooks
 * lets a header carry several so a receiver holding any one of the secrets verifies it: a rotation's overlap).
 */
export function webhookSignatures(keys: readonly Buffer[], id: string, timestampSeconds: number, body: Buffer): string {
  if (keys.length === 0) throw new RangeError('a webhook is signed with at least one key');
  return keys.map((key) => webhookSignature(key, id, timestampSeconds, body)).join(' ');
}
