// Refusals of the presigned upload target in S3's terms (status, error code, fixed message), because
// what posts to it is written against S3's browser POST: clients and their libraries parse these.
// The form checks of src/jobs/upload-policy.ts say what is wrong (UploadFormRefused); this table
// alone says how S3 would answer it, with the route's own refusals beside them.
import type { UploadFormRefused } from '../../jobs/upload-policy.js';

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

export const UPLOAD_REFUSALS = {
  malformed: () => new UploadFormError(400, 'MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.'),
  missingField: () => new UploadFormError(400, 'InvalidArgument', 'Bucket POST must contain every field of the upload form.'),
  notOneFile: () => new UploadFormError(400, 'InvalidArgument', 'POST requires exactly one file upload per request.'),
  extraField: () => new UploadFormError(403, 'AccessDenied', 'Invalid according to Policy: Extra input fields.'),
  badSignature: () => new UploadFormError(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'),
  conditionFailed: () => new UploadFormError(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed.'),
  // What S3 answers for a browser POST whose policy `expiration` has passed.
  expired: () => new UploadFormError(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.'),
  used: () => new UploadFormError(403, 'AccessDenied', 'Invalid according to Policy: this upload form has already been used.'),
  busy: () =>
    new UploadFormError(409, 'OperationAborted', 'A conflicting conditional operation is currently in progress against this resource. Please try again.'),
  tooSmall: () => new UploadFormError(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size.'),
  tooLarge: () => new UploadFormError(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size.'),
  timeout: () => new UploadFormError(400, 'RequestTimeout', 'Your socket connection to the server was not read from or written to within the timeout period.'),
  storage: () => new UploadFormError(503, 'ServiceUnavailable', 'Storage is unavailable; nothing was stored. Retry the upload later.', { 'retry-after': '30' }),
  internal: () => new UploadFormError(500, 'InternalError', 'We encountered an internal error. Please try again.'),
  // S3 answers a POST signed with credentials that no longer exist with 403; the form is dead for good.
  keyRevoked: () => new UploadFormError(403, 'AccessDenied', 'Invalid according to Policy: the credentials that issued this form have been revoked.'),
  // Which of two values to check against the policy (or to store) would be a guess: refused instead.
  repeatedField: () => new UploadFormError(400, 'InvalidArgument', 'Each POST form field must appear only once.'),
  // busboy cuts a field at the route's fieldSize; S3's answer for form fields over its limit.
  fieldTooLarge: () => new UploadFormError(400, 'MaxPostPreDataLengthExceeded', 'Your POST request fields preceding the upload file were too large.'),
} as const;

/** S3's answer to a form the policy check refused (a problem without an entry fails the build). */
export function refusalOf(error: UploadFormRefused): UploadFormError {
  return UPLOAD_REFUSALS[error.problem]();
}
