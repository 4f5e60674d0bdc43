// The names every blob store gives job audio and results (file names on disk, the last part of an
// object key in a bucket), and the checks on what callers pass in to build them. One place, so the
// stores cannot drift apart in what a job id or a revision may be.
import { BlobPathError, type ResultKind } from './blob-store.js';

/** A job id as blob names and notices carry it (job ids are `job_` and 22 base62 characters; this admits any id the stores could hand out). */
export const JOB_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Job audio: `<jobId>.audio`. */
export const JOB_AUDIO_NAME = /^[A-Za-z0-9_-]{1,128}\.audio$/;
/**
 * A final result, a revised final result, a provisional revision, a redacted copy of the audio or the
 * unredacted transcript kept beside a redacted result (final, or provisional revision n):
 * `<jobId>.result`, `<jobId>.result-<n>`, `<jobId>.partial-<n>`, `<jobId>.redacted-audio`,
 * `<jobId>.unredacted`, `<jobId>.unredacted-<n>`.
 */
export const RESULT_NAME = /^[A-Za-z0-9_-]{1,128}\.(?:partial-\d{1,9}|result(?:-\d{1,9})?|redacted-audio|unredacted(?:-\d{1,9})?)$/;

export function checkJobId(jobId: string): string {
  if (!JOB_ID.test(jobId)) throw new BlobPathError('a job id for blob storage is 1 to 128 letters, digits, _ or -');
  return jobId;
}

export function jobAudioName(jobId: string): string {
  return `${checkJobId(jobId)}.audio`;
}

export function resultName(jobId: string, result: ResultKind): string {
  checkJobId(jobId);
  if (result.kind === 'redacted_audio') return `${jobId}.redacted-audio`;
  if (result.kind === 'unredacted') return result.revision === undefined ? `${jobId}.unredacted` : `${jobId}.unredacted-${checkRevision(result.revision)}`;
  if (result.kind === 'final') return result.revision === undefined ? `${jobId}.result` : `${jobId}.result-${checkRevision(result.revision)}`;
  return `${jobId}.partial-${checkRevision(result.revision)}`;
}

/** A revision as result names carry it: a non-negative integer of at most 9 digits. */
function checkRevision(revision: number): number {
  if (!(Number.isInteger(revision) && revision >= 0 && revision < 1e9)) {
    throw new BlobPathError('a result revision is a non-negative integer');
  }
  return revision;
}

/** Checks the arguments of readRange (programming errors, not storage ones). */
export function checkByteRange(offset: number, length: number): void {
  if (!(Number.isSafeInteger(offset) && offset >= 0 && Number.isSafeInteger(length) && length >= 0)) {
    throw new RangeError('a byte range has a non-negative integer offset and length');
  }
}

/** The job id and kind a result's name (RESULT_NAME) carries; null when `name` is not a result's. */
export function parseResultName(name: string): { jobId: string; result: ResultKind } | null {
  const match = /^([A-Za-z0-9_-]{1,128})\.(?:partial-(\d{1,9})|result(?:-(\d{1,9}))?|(redacted-audio)|unredacted(?:-(\d{1,9}))?)$/.exec(name);
  if (!match) return null;
  const [, jobId, partial, final, redacted, unredacted] = match;
  const revision = (digits: string | undefined) => (digits === undefined ? {} : { revision: Number(digits) });
  if (partial !== undefined) return { jobId: jobId!, result: { kind: 'partial', revision: Number(partial) } };
  if (redacted !== undefined) return { jobId: jobId!, result: { kind: 'redacted_audio' } };
  if (name.includes('.unredacted')) return { jobId: jobId!, result: { kind: 'unredacted', ...revision(unredacted) } };
  return { jobId: jobId!, result: { kind: 'final', ...revision(final) } };
}
