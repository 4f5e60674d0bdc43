// What a job's stored file is and how long, refusing what cannot be a recording: read at the job's
// first claim (job-chunk.ts) and, for its reservation, when its upload is completed
// (complete-job-upload.ts). Both read the same file the same way, so both judge it alike.
import { type AudioContainer, type AudioSource, probeAudio, sniffWithReader } from '../audio/index.js';
import type { ServiceConfig } from '../config/service-config.js';
import { requireMultichannelAudio } from '../pipeline/channel-tracks.js';
import type { BlobStore } from '../store/blob-store.js';
import { audioUrlSeconds } from './job-audio-url.js';
import { JOB_FAILURE_MESSAGES, JobFailure } from './job-failure.js';

export interface JobAudio {
  container: AudioContainer;
  durationSeconds: number;
}

/**
 * Throws JobFailure (audio_undecodable, audio_too_long) for a file the job would fail on; `multichannel`:
 * also for audio that is not a recording of as many channels as it takes (the message says which).
 */
export async function probeJobAudio(
  blobs: Pick<BlobStore, 'readRange' | 'audioSource'>,
  audioPath: string,
  config: Pick<ServiceConfig, 'decodeTimeoutMs' | 'maxAudioSeconds'>,
  signal?: AbortSignal,
  multichannel = false,
): Promise<JobAudio> {
  const container = await sniffWithReader((offset, length) => blobs.readRange(audioPath, offset, length));
  if (!container) throw new JobFailure('audio_undecodable', JOB_FAILURE_MESSAGES.undecodable);
  const source: AudioSource = await blobs.audioSource(audioPath, audioUrlSeconds(config.decodeTimeoutMs));
  const probe = await probeAudio(source, { timeoutMs: config.decodeTimeoutMs, container, signal });
  if (probe.durationSeconds > config.maxAudioSeconds) throw new JobFailure('audio_too_long', JOB_FAILURE_MESSAGES.tooLong);
  if (multichannel) {
    try {
      requireMultichannelAudio(probe.channels);
    } catch (error) {
      // The refusal's text is fixed (it names a count, never the file): the job's failure says it as it is.
      throw new JobFailure('audio_undecodable', (error as Error).message, { cause: error });
    }
  }
  return { container, durationSeconds: probe.durationSeconds };
}
