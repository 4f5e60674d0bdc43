// Reading ffmpeg's account of a URL source: whether the storage behind it failed (as opposed to the
// recording), and its stderr with the URL's signature taken out before anything keeps it.
//
// A storage failure is not the recording's fault, so it is not an AudioError (those become a job's
// `audio_undecodable`): a 404 means the object is gone, a 403 that the URL expired or the
// credentials are wrong, anything else (refused, reset, timed out, 5xx, a body cut short that
// reconnecting could not resume) that storage is unreachable for now.
//
// What ffmpeg 5.1 prints (checked against s3rver and a test server that cuts connections): an input
// it cannot open or read fails as one line `<input url>: <message>`, e.g. `Server returned 404 Not
// Found`, `Server returned 403 Forbidden (access denied)`, `Connection refused`, `Input/output
// error` (a cut the reconnects could not heal). A read error mid-file does NOT fail ffmpeg: it ends
// the input there and exits 0 with the audio truncated, so this is checked whatever the exit code.
// Damaged data reads `<input url>: Invalid data found when processing input`: the recording's fault.
//
// Only what a file's content cannot provoke counts as storage failing, so a hostile upload can never
// pass for an outage that a job runner would retry forever:
// - `Server returned 404 / 401 / 403 / 5XX`: answers about the object, whatever its bytes;
// - refused, reset, timed out, unreachable, unresolvable: sockets, not demuxers;
// - `Input/output error` only when ffmpeg's http/tcp/tls layer complained too (e.g. `Stream ends
//   prematurely`): demuxers also return EIO for a file that merely ends early (Matroska does);
// - `End of file` likewise only beside such a complaint (`Will reconnect at 0`): a connection that
//   closed before any answer, as from a proxy or load balancer in front of a stopped bucket, and
//   the reconnects met the same (an empty or short object answered 200 reads `Invalid data`);
// - other 4xx stay undecodable: S3's 416 answers a seek past the end, which a lying header asks for.
import type { AudioSource } from './audio-source.js';
import type { ToolRunEnding } from './ffmpeg-process.js';
import { STDERR_TAIL_BYTES } from './ffmpeg-process.js';

export type AudioSourceFailureReason = 'not_found' | 'forbidden' | 'unreachable';

const MESSAGES: Readonly<Record<AudioSourceFailureReason, string>> = {
  not_found: 'The audio is not in storage (any more).',
  forbidden: 'Storage refused to serve the audio (an expired or wrongly signed URL).',
  unreachable: 'Storage could not be reached to read the audio.',
};

/** The storage behind a URL source failed while ffmpeg or ffprobe read it. */
export class AudioSourceUnavailableError extends Error {
  override readonly name = 'AudioSourceUnavailableError';
  /** ffmpeg's stderr tail, the URL replaced by its label. Non-enumerable, like AudioError's. */
  declare readonly detail: string;

  constructor(
    readonly reason: AudioSourceFailureReason,
    /** The source's label (never its URL). */
    readonly label: string,
    /** The HTTP status storage answered, when there was an answer ffmpeg names. */
    readonly httpStatus: number | null,
    detail: string,
  ) {
    super(MESSAGES[reason]);
    Object.defineProperty(this, 'detail', { value: detail, enumerable: false, writable: false, configurable: false });
  }
}

/**
 * The run's ending with its stderr tail redacted (for a URL source); throws AudioSourceUnavailableError
 * when the source, not the recording, failed. Runs the caller stopped, timed out or aborted are
 * left to the caller: they say nothing about storage.
 */
export function settleSourceRun(ending: ToolRunEnding, source: AudioSource): ToolRunEnding {
  if (source.kind === 'file') return ending;
  const stderrTail = redactSourceText(ending.stderrTail, source);
  const redacted = { ...ending, stderrTail };
  if (ending.kind !== 'exited') return redacted;
  const failure = failureIn(stderrTail, source.label);
  if (failure) throw new AudioSourceUnavailableError(failure.reason, source.label, failure.httpStatus, stderrTail);
  return redacted;
}

const SERVER_RETURNED = /Server returned (\d)(\d\d|XX)/;
const SOCKET_FAILURE = /Connection refused|Connection reset|timed out|Network is unreachable|No route to host|Failed to resolve|Broken pipe/i;
const IO_ERROR = /Input\/output error/;
const END_OF_FILE = /^End of file$/;
/** A line logged by ffmpeg's network protocols themselves, e.g. `[http @ 0x55...] Stream ends prematurely`. */
const PROTOCOL_COMPLAINT = /^\[(?:https?|tcp|tls) @ /m;

function failureIn(stderr: string, label: string): { reason: AudioSourceFailureReason; httpStatus: number | null } | null {
  const inputFailures = stderr
    .split('\n')
    .filter((line) => line.startsWith(`${label}: `))
    .map((line) => line.slice(label.length + 2));
  for (const message of inputFailures) {
    const returned = SERVER_RETURNED.exec(message);
    if (returned) {
      const httpStatus = returned[2] === 'XX' ? null : Number(returned[1] + returned[2]);
      if (httpStatus === 404) return { reason: 'not_found', httpStatus };
      if (httpStatus === 401 || httpStatus === 403) return { reason: 'forbidden', httpStatus };
      if (returned[1] === '5') return { reason: 'unreachable', httpStatus };
      continue;
    }
    if (SOCKET_FAILURE.test(message)) return { reason: 'unreachable', httpStatus: null };
    if ((IO_ERROR.test(message) || END_OF_FILE.test(message)) && PROTOCOL_COMPLAINT.test(stderr)) return { reason: 'unreachable', httpStatus: null };
  }
  return null;
}

/** Query parameters that authorise a request (AWS SigV4 and V2 presigning), in any casing. */
const SIGNED_TOKEN = /\S*(?:X-Amz-(?:Signature|Credential|Security-Token)|[?&](?:Signature|AWSAccessKeyId)=)\S*/gi;

/**
 * `text` with the source's URL replaced by its label, and any leftover piece of a signed URL
 * removed: the stderr tail is cut at a byte count, which may fall inside the URL on its first line
 * (that line is dropped when the tail may have been cut).
 */
export function redactSourceText(text: string, source: AudioSource): string {
  if (source.kind === 'file') return text;
  let out = text;
  if (Buffer.byteLength(out, 'utf8') >= STDERR_TAIL_BYTES - 4) out = out.slice(out.indexOf('\n') + 1);
  out = out.split(source.url).join(source.label);
  return out.replace(SIGNED_TOKEN, '[redacted]');
}
