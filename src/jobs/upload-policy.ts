// Presigned upload forms in the manner of S3's browser POST: the form's `fields` carry a policy (the
// job, the exact length, the content type, the expiry) and an HMAC-SHA256 of it under the server's
// secret. Whoever holds the fields may upload that one file to that one job before the expiry; the
// signature is the authority, so the upload route needs no API key (a browser can post the form).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const POLICY_ALGORITHM = 'HMAC-SHA256';
export const FORM_FIELDS = ['key', 'Content-Type', 'policy', 'x-svc-algorithm', 'x-svc-signature'] as const;

export interface UploadPolicy {
  jobId: string;
  contentType: string;
  contentLength: number;
  expiresAtMs: number;
}

export function uploadObjectKey(jobId: string): string {
  return `uploads/${jobId}`;
}

export function signUploadForm(secret: Buffer, policy: UploadPolicy): Record<string, string> {
  const document = {
    expiration: new Date(policy.expiresAtMs).toISOString(),
    conditions: [
      { key: uploadObjectKey(policy.jobId) },
      { 'Content-Type': policy.contentType },
      ['content-length-range', policy.contentLength, policy.contentLength],
    ],
  };
  const encoded = Buffer.from(JSON.stringify(document), 'utf8').toString('base64');
  return {
    key: uploadObjectKey(policy.jobId),
    'Content-Type': policy.contentType,
    policy: encoded,
    'x-svc-algorithm': POLICY_ALGORITHM,
    'x-svc-signature': sign(secret, encoded),
  };
}

/** What is wrong with a submitted form; src/api answers each in S3's terms. */
export type UploadFormProblem = 'extraField' | 'missingField' | 'badSignature' | 'conditionFailed' | 'expired';

export class UploadFormRefused extends Error {
  constructor(readonly problem: UploadFormProblem) {
    super(`upload form refused: ${problem}`);
    this.name = 'UploadFormRefused';
  }
}

const refuse = (problem: UploadFormProblem) => new UploadFormRefused(problem);

/**
 * Checks a submitted form against the job in the URL and the clock. The signature is verified before
 * the policy is read, so nothing of an unsigned policy is ever trusted.
 */
export function verifyUploadForm(secret: Buffer, fields: Record<string, string>, jobId: string, nowMs: number): UploadPolicy {
  for (const name of Object.keys(fields)) {
    if (!(FORM_FIELDS as readonly string[]).includes(name)) throw refuse('extraField');
  }
  for (const name of FORM_FIELDS) if (fields[name] === undefined) throw refuse('missingField');
  if (fields['x-svc-algorithm'] !== POLICY_ALGORITHM) throw refuse('badSignature');
  const expected = Buffer.from(sign(secret, fields.policy), 'hex');
  const given = Buffer.from(/^[0-9a-f]{64}$/.test(fields['x-svc-signature']) ? fields['x-svc-signature'] : '', 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refuse('badSignature');

  const document = JSON.parse(Buffer.from(fields.policy, 'base64').toString('utf8')) as {
    expiration: string;
    conditions: [{ key: string }, { 'Content-Type': string }, [string, number, number]];
  };
  const [keyCondition, typeCondition, range] = document.conditions;
  if (keyCondition.key !== uploadObjectKey(jobId) || fields.key !== keyCondition.key) throw refuse('conditionFailed');
  if (fields['Content-Type'] !== typeCondition['Content-Type']) throw refuse('conditionFailed');
  const expiresAtMs = Date.parse(document.expiration);
  if (!(expiresAtMs > nowMs)) throw refuse('expired');
  return { jobId, contentType: typeCondition['Content-Type'], contentLength: range[1], expiresAtMs };
}

function sign(secret: Buffer, encodedPolicy: string): string {
  return createHmac('sha256', secret).update(encodedPolicy, 'utf8').digest('hex');
}
