// The 201 POST /v1/jobs answers with: the job, its upload form, where to complete and poll it, the
// audio lengths it takes, and whether a webhook was asked for. Stored whole with the Idempotency-Key,
// so a retry is answered byte for byte the same.
import type { CreatedJob } from '../../application/create-presigned-job.js';
import type { ServiceConfig } from '../../config/service-config.js';
import type { StoredResponse } from '../../store/idempotency-store.js';
import { jobUrls, jobView, MIN_AUDIO_SECONDS_ADVISORY } from './job-view.js';

export function createdJobAnswer(
  { job, upload, expirySeconds, now }: CreatedJob,
  config: Pick<ServiceConfig, 'publicBaseUrl' | 'maxAudioSeconds'>,
): StoredResponse {
  const urls = jobUrls(config.publicBaseUrl, job.id);
  return {
    status: 201,
    headers: { location: urls.poll, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({
      ...jobView(job, config.publicBaseUrl, now.getTime()),
      upload: { method: 'POST', url: upload.url, fields: upload.fields, expires_in_seconds: expirySeconds },
      complete_url: urls.complete,
      poll_url: urls.poll,
      min_audio_seconds: MIN_AUDIO_SECONDS_ADVISORY,
      max_audio_seconds: Math.floor(config.maxAudioSeconds),
      // As the direct route's 202 says it (accepted-job-answer.ts): whether an event will announce the end.
      webhook: { requested: job.webhookUrl !== null },
    }),
  };
}
