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

/** Why a form was refused, in S3's terms (status, error code, fixed message). */
export class UploadFormError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'UploadFormError';
  }
}

export const FORM_ERRORS = {
  malformed: () => new UploadFormError(400, 'MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.'),
  missingField: () => new UploadFormError(400, 'InvalidArgument', 'Bucket POST must contain every field of the upload form.'),
  extraField: () => new UploadFormError(403, 'AccessDenied', 'Invalid according to Policy: Extra input fields.'),
  badSignature: () =>
    new UploadFormError(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'),
  conditionFailed: () => new UploadFormError(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed.'),
  // What S3 answers for a browser POST whose policy `expiration` has passed.
  expired: () => new UploadFormError(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.'),
  used: () => new UploadFormError(403, 'AccessDenied', 'Invalid according to Policy: this upload form has already been used.'),
  busy: () => new UploadFormError(409, 'OperationAborted', 'A conflicting conditional operation is currently in progress against this resource. Please try again.'),
  tooSmall: () => new UploadFormError(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size.'),
  tooLarge: () => new UploadFormError(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size.'),
  timeout: () => new UploadFormError(400, 'RequestTimeout', 'Your socket connection to the server was not read from or written to within the timeout period.'),
  storage: () => new UploadFormError(503, 'ServiceUnavailable', 'Storage is unavailable; nothing was stored. Retry the upload later.', { 'retry-after': '30' }),
  internal: () => new UploadFormError(500, 'InternalError', 'We encountered an internal error. Please try again.'),
} as const;

/**
 * Checks a submitted form against the job in the URL and the clock. The signature is verified before
 * the policy is read, so nothing of an unsigned policy is ever trusted.
 */
export function verifyUploadForm(secret: Buffer, fields: Record<string, string>, jobId: string, nowMs: number): UploadPolicy {
  for (const name of Object.keys(fields)) {
    if (!(FORM_FIELDS as readonly string[]).includes(name)) throw FORM_ERRORS.extraField();
  }
  for (const name of FORM_FIELDS) if (fields[name] === undefined) throw FORM_ERRORS.missingField();
  if (fields['x-svc-algorithm'] !== POLICY_ALGORITHM) throw FORM_ERRORS.badSignature();
  const expected = Buffer.from(sign(secret, fields.policy), 'hex');
  const given = Buffer.from(/^[0-9a-f]{64}$/.test(fields['x-svc-signature']) ? fields['x-svc-signature'] : '', 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw FORM_ERRORS.badSignature();

  const document = JSON.parse(Buffer.from(fields.policy, 'base64').toString('utf8')) as {
    expiration: string;
    conditions: [{ key: string }, { 'Content-Type': string }, [string, number, number]];
  };
  const [keyCondition, typeCondition, range] = document.conditions;
  if (keyCondition.key !== uploadObjectKey(jobId) || fields.key !== keyCondition.key) throw FORM_ERRORS.conditionFailed();
  if (fields['Content-Type'] !== typeCondition['Content-Type']) throw FORM_ERRORS.conditionFailed();
  const expiresAtMs = Date.parse(document.expiration);
  if (!(expiresAtMs > nowMs)) throw FORM_ERRORS.expired();
  return { jobId, contentType: typeCondition['Content-Type'], contentLength: range[1], expiresAtMs };
}

function sign(secret: Buffer, encodedPolicy: string): string {
  return createHmac('sha256', secret).update(encodedPolicy, 'utf8').digest('hex');
}
