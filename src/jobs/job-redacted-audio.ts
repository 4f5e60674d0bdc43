// A job's redacted copy of its audio (`redact_audio`, docs/API.md "Redaction"): made as the job
// succeeds, from its audio before that is deleted, silent (or a tone) over each redaction padded on both sides
// (word times are estimates), as a 16 kHz mono 16-bit WAV kept beside the result. A copy that cannot
// be made costs the job nothing but the copy: the job succeeds with its transcript, the view says the
// copy is unavailable, and no part of a copy is left behind.
import { type AudioContainer, padAndMergeSpans, type RedactionFill, type TimeSpan, writeMutedWav } from '../audio/index.js';
import type { ServiceConfig } from '../config/service-config.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import { audioUrlSeconds } from './job-audio-url.js';

/** Silence this much before and after each redaction (seconds). */
export const REDACTION_PAD_SECONDS = 0.2;
/** The copy may run this much past the longest audio taken (codec padding; the audio was probed before). */
const LENGTH_MARGIN_SECONDS = 60;

export interface RedactedAudioDeps {
  blobs: TenantBlobs;
  config: Pick<ServiceConfig, 'decodeTimeoutMs' | 'maxAudioSeconds'>;
  log?: { warn(obj: object, msg: string): void };
}

/** The copy's ref, or null when it could not be made (logged, never thrown). */
export async function makeRedactedAudio(
  deps: RedactedAudioDeps,
  job: { id: string; tenant: string; audioPath: string | null },
  container: AudioContainer,
  redactions: readonly TimeSpan[],
  fill: RedactionFill = 'silence',
): Promise<string | null> {
  const { config } = deps;
  const blobs = deps.blobs.forTenant(job.tenant);
  if (!job.audioPath) return null;
  const spooled = blobs.createUploadPath('redacted');
  try {
    const source = await blobs.audioSource(job.audioPath, audioUrlSeconds(config.decodeTimeoutMs));
    await writeMutedWav(source, spooled, {
      container,
      spans: padAndMergeSpans(redactions, REDACTION_PAD_SECONDS),
      fill,
      maxSeconds: config.maxAudioSeconds + LENGTH_MARGIN_SECONDS,
      timeoutMs: config.decodeTimeoutMs,
    });
    return (await blobs.moveToResult(spooled, job.id, { kind: 'redacted_audio' })).path;
  } catch (error) {
    deps.log?.warn({ err: error, jobId: job.id }, 'the redacted audio could not be made; the job succeeds without it');
    await blobs.delete(spooled).catch(() => {});
    return null;
  }
}
