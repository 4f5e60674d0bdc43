// Where ffmpeg/ffprobe read a recording from: a local file (uploads, the embedded store's job audio)
// or an HTTP(S) URL that answers Range requests (job audio in object storage, read in place through
// a presigned URL: no local copy, and seeking — an MP4 index at the end, a window in the middle of
// a two-hour recording — is a Range request, never a download of the whole file).
// Blob stores hand these out (src/store/blob-store.ts re-exports the type); the audio layer owns it
// because ffmpeg's arguments, protocols and failure reading depend on it.

export type AudioSource =
  | { kind: 'file'; path: string }
  | {
      kind: 'url';
      url: string;
      /** For logs and error details: never the URL, which carries a signature. */
      label: string;
    };

/** What the audio functions accept: a local path (as every caller passed before) or a source. */
export type AudioInput = string | AudioSource;

export function audioSourceOf(input: AudioInput): AudioSource {
  return typeof input === 'string' ? { kind: 'file', path: input } : input;
}
