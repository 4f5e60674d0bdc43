// Refusals of the presigned upload target beyond the form checks of src/jobs/upload-policy.ts, in
// S3's terms like those: a form whose issuing key was revoked, and a form that repeats a field.
import { UploadFormError } from '../../jobs/upload-policy.js';

export const UPLOAD_REFUSALS = {
  // S3 answers a POST signed with credentials that no longer exist with 403; the form is dead for good.
  keyRevoked: () => new UploadFormError(403, 'AccessDenied', 'Invalid according to Policy: the credentials that issued this form have been revoked.'),
  // Which of two values to check against the policy (or to store) would be a guess: refused instead.
  repeatedField: () => new UploadFormError(400, 'InvalidArgument', 'Each POST form field must appear only once.'),
} as const;
