// What the job creation use case needs from the route that serves it, at the moments it needs it: a
// word once the request is admitted, the address of the embedded upload target, and the answer a new
// job gets, stored for an Idempotency-Key's retries. src/api implements it; the use case never sees how.
import type { Profile } from '../contract/request-fields.js';
import type { StoredResponse } from '../store/idempotency-store.js';
import type { JobRecord } from '../store/job-store.js';

/** Where and how the client posts its file: a browser POST form. */
export interface UploadForm {
  url: string;
  fields: Record<string, string>;
}

export interface CreatedJob {
  job: JobRecord;
  upload: UploadForm;
  /** How long the form is valid from `now`. */
  expirySeconds: number;
  now: Date;
}

export interface JobCreationConnection {
  /** The request is checked and its webhook admitted: what it announces (a deprecated profile) applies from here on. */
  admitted(profile: Profile): void;
  /** The embedded upload target of a job's form, used when the blob store takes no uploads of its own. */
  embeddedUploadUrl(jobId: string): string;
  /** The answer to a job created now, as it will be given again to a retry with the same Idempotency-Key. */
  jobCreated(created: CreatedJob): StoredResponse;
}
