// Refusals of the presigned upload target beyond the form checks of src/jobs/upload-policy.ts, in
// S3's terms like those: a form whose issuing key was revoked, a form that repeats a field, and a
// field longer than the route reads.
import { UploadFormError } from '../../jobs/upload-policy.js';

export const UPLOAD_REFUSALS = {
  // S3 answers a POST signed with credentials that no longer exist with 403; the form is dead for good.
  keyRevoked: () => new UploadFormError(403, 'AccessDenied', 'Invalid according to Policy: the credentials that issued this form have been revoked.'),
  // Which of two values to check against the policy (or to store) would be a guess: refused instead.
  repeatedField: () => new UploadFormError(400, 'InvalidArgument', 'Each POST form field must appear only once.'),
  // busboy cuts a field at the route's fieldSize; S3's answer for form fields over its limit.
  fieldTooLarge: () => new UploadFormError(400, 'MaxPostPreDataLengthExceeded', 'Your POST request fields preceding the upload file were too large.'),
} as const;
