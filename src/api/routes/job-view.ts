// The Job resource as clients see it, from a job record and the clock. Expiry is judged on the
// record's own deadlines (src/application/job-deadlines.ts), so a poll made a second after a result
// expired already says so, whether or not the sweeper has deleted the file yet.
import { resultExpired } from '../../application/job-deadlines.js';
import type { InlineResult } from '../../application/poll-job.js';
import { asksRedactedAudio } from '../../jobs/job-request.js';
import type { JobRecord } from '../../store/job-store.js';

export interface JobUrls {
  poll: string;
  result: string;
  partial: string;
  complete: string;
  redactedAudio: string;
  unredactedResult: string;
}

/** What the redacted audio route serves (src/jobs/job-redacted-audio.ts writes it). */
export const REDACTED_AUDIO_CONTENT_TYPE = 'audio/wav';

export function jobUrls(baseUrl: string, jobId: string): JobUrls {
  const poll = `${baseUrl}/v1/jobs/${jobId}`;
  return {
    poll,
    result: `${poll}/result`,
    partial: `${poll}/partial`,
    complete: `${poll}/complete`,
    redactedAudio: `${poll}/redacted_audio`,
    unredactedResult: `${poll}/unredacted_result`,
  };
}

/** The job envelope's advisory floor (docs/DESIGN.md decision 1); shorter audio is still transcribed. */
export const MIN_AUDIO_SECONDS_ADVISORY = 30;

/** The `object` of a job envelope. */
export const JOB_OBJECT = 'transcription.job';

export function jobView(job: JobRecord, baseUrl: string, nowMs: number, inline: InlineResult | null = null): Record<string, unknown> {
  const urls = jobUrls(baseUrl, job.id);
  const view: Record<string, unknown> = {
    id: job.id,
    object: JOB_OBJECT,
    status: job.status,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    model: job.model,
  };
  if (job.status === 'succeeded') {
    if (resultExpired(job, nowMs)) {
      view.result = { expired: true };
    } else {
      const result: Record<string, unknown> = {
        download_url: urls.result,
        expires_in_seconds: Math.max(0, Math.floor((job.resultExpiresAtMs! - nowMs) / 1000)),
        content_type: job.resultContentType,
        expired: false,
      };
      if (inline && 'content' in inline) {
        const text = inline.content.toString('utf8');
        result.content = job.resultContentType?.startsWith('application/json') ? JSON.parse(text) : text;
        result.inline = true;
      } else if (inline) {
        result.inline = false;
      }
      const redactedAudio = redactedAudioView(job, urls);
      if (redactedAudio) result.redacted_audio = redactedAudio;
      if (job.unredactedPath !== null) result.unredacted_result = { download_url: urls.unredactedResult, content_type: job.resultContentType };
      view.result = result;
    }
  }
  if (job.status === 'failed') view.error = { code: job.errorCode, message: job.errorMessage };
  if (job.status === 'running' && job.resultRevision > 0 && job.partialPath) {
    view.transcription = {
      status: 'processing',
      partial_result_url: urls.partial,
      result_revision: job.resultRevision,
      completed_audio_seconds: Math.round(job.completedAudioSeconds * 1000) / 1000,
      provisional: true,
    };
  }
  return view;
}

/** The result's `redacted_audio` when the job asked for it: where to fetch it, or that it could not be made. */
function redactedAudioView(job: JobRecord, urls: JobUrls): Record<string, unknown> | null {
  if (job.redactedAudioPath !== null) return { status: 'ready', download_url: urls.redactedAudio, content_type: REDACTED_AUDIO_CONTENT_TYPE };
  return asksRedactedAudio(job.request) ? { status: 'unavailable' } : null;
}
