// A POST /v1/jobs body once its fields are checked: the request the job will run, and what the
// client declares of the file it will upload (the upload slot admits exactly that).
import type { StoredJobRequest } from '../jobs/job-request.js';

export interface JobCreation {
  request: StoredJobRequest;
  filename: string;
  contentType: string;
  contentLength: number;
}
