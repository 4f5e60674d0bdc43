// Completing a job whose file went straight to the bucket (S3's presigned POST): nothing told the
// service about the upload, so `POST /v1/jobs/{id}/complete` looks for it. The object is collected
// under the job's upload slot (beginUpload ... storeUpload), the same claim the embedded upload
// route holds while a file streams in, so two completes at once collect it once; a failure gives
// the slot back for the client to retry, and the client's upload object is removed only once the
// job's copy is recorded.
import { type BlobStore, DirectUploadMismatchError, type DirectUploads } from '../store/blob-store.js';
import type { JobRecord, JobStore } from '../store/job-store.js';

/**
 * `stored`: the job now has its audio; `absent`: nothing was uploaded yet; `mismatch`: an object
 * of another length or type was uploaded (and removed: the form may be posted again); `busy`:
 * another request holds the slot (or it is closed); complete() then says what the job's state is.
 */
export type DirectUploadCollection = 'stored' | 'absent' | 'mismatch' | 'busy';

export async function collectDirectUpload(
  deps: { jobs: JobStore; blobs: Pick<BlobStore, 'delete'>; directUploads: DirectUploads },
  job: JobRecord,
  nowMs: number,
): Promise<DirectUploadCollection> {
  if (job.status !== 'awaiting_upload' || job.uploadState !== 'empty' || job.uploadBytes === null || job.uploadExpiresAtMs === null) return 'busy';
  // Until the complete-by deadline: the bucket already held the form to its expiry.
  if (!(await deps.jobs.beginUpload(job.id, nowMs, { until: 'complete_by' }))) return 'busy';
  const contentType = typeof job.request.contentType === 'string' ? job.request.contentType : '';
  const policy = { jobId: job.id, contentType, contentLength: job.uploadBytes, expiresAtMs: job.uploadExpiresAtMs };
  let stored = false;
  try {
    let audio: string | null;
    try {
      audio = await deps.directUploads.collect(policy);
    } catch (error) {
      if (error instanceof DirectUploadMismatchError) return 'mismatch';
      throw error;
    }
    if (audio === null) return 'absent';
    try {
      stored = await deps.jobs.storeUpload(job.id, audio, nowMs);
    } finally {
      // The slot was closed meanwhile (the key revoked), or the row could not be written: the copy
      // is nobody's (the client's upload is still there for a retry).
      if (!stored) await deps.blobs.delete(audio).catch(() => {});
    }
    if (!stored) return 'busy';
    // Recorded: the upload object has served its purpose (if this fails, the sweeper removes it).
    await deps.directUploads.discard(job.id).catch(() => {});
    return 'stored';
  } finally {
    if (!stored) await deps.jobs.abandonUpload(job.id);
  }
}
