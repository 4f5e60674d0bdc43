// How long a job's audio source stays valid. Local disk gives the file; S3 a presigned URL, which
// ffmpeg streams with Range requests: it must outlive any decode it serves (a reconnect or a seek
// late in a slow decode still works). Shared by the chunks and the decoration.

/** A presigned audio URL outlives the longest decode it serves by this much (seconds). */
const AUDIO_URL_MARGIN_SECONDS = 300;
const MAX_AUDIO_URL_SECONDS = 7 * 24 * 3600;

export function audioUrlSeconds(decodeTimeoutMs: number): number {
  return Math.min(MAX_AUDIO_URL_SECONDS, Math.ceil(decodeTimeoutMs / 1000) + AUDIO_URL_MARGIN_SECONDS);
}
