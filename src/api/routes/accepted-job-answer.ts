// The 202 a direct upload gets when its audio becomes a job: where to poll and when to look again.
// Stored whole with the Idempotency-Key, so a retry is answered byte for byte the same.
import { JOB_MODEL } from '../../domain/model-ids.js';
import type { StoredResponse } from '../../store/idempotency-store.js';
import { type JobRecord } from '../../store/job-store.js';
import { JOB_OBJECT, jobUrls } from './job-view.js';

export function acceptedJobAnswer(job: JobRecord, publicBaseUrl: string): StoredResponse {
  const pollUrl = jobUrls(publicBaseUrl, job.id).poll;
  return {
    status: 202,
    headers: { location: pollUrl, 'retry-after': '5', 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({
      id: job.id,
      object: JOB_OBJECT,
      status: job.status,
      created_at: job.createdAt,
      model: JOB_MODEL,
      poll_url: pollUrl,
      webhook: { requested: job.webhookUrl !== null },
    }),
  };
}
