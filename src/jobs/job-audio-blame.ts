// Whom a failed decode of a job's stored recording is blamed on. ffmpeg at its quiet log level
// cannot tell a connection that closed before any answer (a proxy or load balancer in front of a
// bucket that is restarting) from a file that ends inside its header: `End of file` either way.
// Blaming the recording fails the job for good, so storage is asked first whether it serves the
// object: when it does not answer, the failure is storage's (StoreUnavailableError: the chunk runs
// again once it is back); when the object is gone, the job's audio is missing; only when storage
// serves it is the recording undecodable. (Storage that returns in the moment between the decode
// and the question still leaves the recording blamed: the window is a round trip, not an outage.)
import { UndecodableAudioError } from '../audio/index.js';
import type { BlobStore } from '../store/blob-store.js';
import { JOB_FAILURE_MESSAGES, JobFailure } from './job-failure.js';

/** Rethrows `error`, or storage's own failure when storage, not the recording at `ref`, failed. */
export async function blameDecodeFailure(blobs: Pick<BlobStore, 'exists'>, ref: string, error: unknown): Promise<never> {
  if (error instanceof UndecodableAudioError && !(await blobs.exists(ref))) throw new JobFailure('internal_error', JOB_FAILURE_MESSAGES.audioMissing);
  throw error;
}
