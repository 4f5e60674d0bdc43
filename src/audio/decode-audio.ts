import { endianness } from 'node:os';

import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { AudioContainer } from './audio-container.js';
import { AudioTooLongError, DecodeAbortedError, UndecodableAudioError } from './audio-errors.js';
import type { AudioInput } from './audio-source.js';
import { throwIfDecodeFailed } from './decode-failure.js';
import { safeInputArgs } from './ffmpeg-input-args.js';
import { FFMPEG_SAFETY_ARGS, FFMPEG_THREAD_ARGS } from './ffmpeg-limits.js';
import { runAudioTool } from './ffmpeg-process.js';
import { GrowableSampleBuffer } from './growable-sample-buffer.js';
import { identifyContainer } from './identify-container.js';
import { readWhisperReadyWav } from './whisper-ready-wav.js';

export interface DecodeAudioOptions {
  /**
   * Audio longer than this fails with `audio_too_long`, judged on the samples actually produced (not
   * on headers, which can lie). Codec padding counts: an MP3 or AAC file whose header says exactly
   * `maxSeconds` may decode some tens of milliseconds longer.
   */
  maxSeconds: number;
  /** Wall-clock limit; on expiry ffmpeg is killed and the call fails with `decode_timeout`. */
  timeoutMs: number;
  /** Aborting kills ffmpeg and fails the call with `decode_aborted` (name 'AbortError'). */
  signal?: AbortSignal;
  /** Duration from `probeAudio`, used only to size the output buffer up front. */
  expectedSeconds?: number;
  /** The container, when the caller has already sniffed these bytes. */
  container?: AudioContainer;
  ffmpegPath?: string;
  /** Read a plain 16 kHz mono 16-bit WAV in-process (default true); false always runs ffmpeg. */
  directWav?: boolean;
  /** Decode only this channel (0-based, `multichannel`); absent: every channel mixed down to mono. */
  channel?: number;
}

/**
 * ffmpeg is also told to stop this long after `maxSeconds` (`-t`), so a file that lies about its
 * length cannot make it produce unbounded output even if we were slow to kill it; the margin makes
 * "over the limit" observable as output past the cap rather than as a silently trimmed result.
 */
const OUTPUT_DURATION_MARGIN_SECONDS = 1;

/** Without a probed duration, start with 30 s of samples (under 2 MB) and double from there. */
const DEFAULT_INITIAL_SECONDS = 30;

/** Probed durations are approximate (padding, estimates): reserve a little more to avoid a regrow. */
const EXPECTED_DURATION_HEADROOM = 1.02;

/**
 * Decodes the first audio stream of a file to 16 kHz mono float32 PCM in an ffmpeg subprocess (a plain
 * 16 kHz mono 16-bit WAV, already in that form, is read in-process: whisper-ready-wav.ts).
 * ffmpeg's stderr never reaches the error messages; it is on the errors' non-enumerable `detail`.
 */
export async function decodeAudio(path: string, options: DecodeAudioOptions): Promise<Float32Array> {
  const { maxSeconds, timeoutMs, signal, expectedSeconds } = options;
  if (!(maxSeconds > 0)) throw new RangeError('maxSeconds must be positive');
  if (signal?.aborted) throw new DecodeAbortedError(signal.reason);
  const container = await identifyContainer(path, options.container);

  const maxSamples = Math.ceil(maxSeconds * SAMPLE_RATE);
  // A whisper-ready WAV is mono: a channel of it is asked only of audio probed to have several.
  if (container === 'wav' && options.directWav !== false && options.channel === undefined) {
    const direct = await readWhisperReadyWav(path, SAMPLE_RATE, maxSamples);
    if (direct) {
      if (direct.length > maxSamples) throw new AudioTooLongError(maxSeconds, direct.length / SAMPLE_RATE);
      if (direct.length === 0) throw new UndecodableAudioError('the WAV file holds no samples');
      return direct;
    }
  }
  const initialSeconds = expectedSeconds !== undefined && expectedSeconds > 0 ? expectedSeconds * EXPECTED_DURATION_HEADROOM + 0.5 : DEFAULT_INITIAL_SECONDS;
  const samples = new GrowableSampleBuffer(initialSeconds * SAMPLE_RATE, maxSamples);

  // Counts what ffmpeg produced, including the chunk refused at the cap: a lower bound of the length.
  let producedBytes = 0;
  const ending = await runAudioTool({
    command: options.ffmpegPath ?? 'ffmpeg',
    args: ffmpegDecodeArgs(path, container, maxSeconds + OUTPUT_DURATION_MARGIN_SECONDS, 0, 'float', options.channel),
    timeoutMs,
    signal,
    onStdout: (chunk) => {
      producedBytes += chunk.length;
      return samples.append(chunk) ? 'continue' : 'stop';
    },
  });

  if (ending.kind === 'stopped') {
    // Only the output cap stops a decode.
    throw new AudioTooLongError(maxSeconds, producedBytes / (SAMPLE_RATE * Float32Array.BYTES_PER_ELEMENT));
  }
  throwIfDecodeFailed(ending, timeoutMs);
  if (samples.sampleCount === 0) throw new UndecodableAudioError(`ffmpeg produced no samples: ${ending.stderrTail}`);
  return samples.toFloat32Array();
}

/**
 * ffmpeg's arguments for decoding to whisper's PCM on stdout. `startSeconds` seeks the input before
 * decoding (`-ss` as an input option: with transcoding ffmpeg decodes from the previous seek point
 * and drops samples up to the exact position, so windows join without gaps or overlaps). `samples`:
 * whisper's float PCM, or 16-bit PCM for a WAV written from it (muted-wav.ts). `channel`: that channel
 * alone (`pan`), not the mix.
 */
export function ffmpegDecodeArgs(
  input: AudioInput,
  container: AudioContainer,
  outputSeconds: number,
  startSeconds = 0,
  samples: 'float' | 'pcm16le' = 'float',
  channel?: number,
): string[] {
  // Native byte order lets the output bytes become a Float32Array without swapping; 16-bit PCM is a WAV's, little-endian.
  const [sampleFormat, sampleCodec] = samples === 'pcm16le' ? ['s16le', 'pcm_s16le'] : endianness() === 'LE' ? ['f32le', 'pcm_f32le'] : ['f32be', 'pcm_f32be'];
  return [
    '-nostdin',
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostats',
    ...FFMPEG_THREAD_ARGS,
    '-filter_threads',
    '1',
    ...FFMPEG_SAFETY_ARGS,
    ...(startSeconds > 0 ? ['-ss', startSeconds.toFixed(3)] : []),
    ...safeInputArgs(input, container),
    '-vn',
    '-sn',
    '-dn',
    '-map',
    '0:a:0',
    ...(channel === undefined ? ['-ac', '1'] : ['-af', `pan=mono|c0=c${channelIndex(channel)}`]),
    '-ar',
    String(SAMPLE_RATE),
    '-t',
    outputSeconds.toFixed(3),
    '-f',
    sampleFormat,
    '-acodec',
    sampleCodec,
    'pipe:1',
  ];
}

/** A channel's index as written into a filter: a small non-negative integer, never anything else. */
function channelIndex(channel: number): number {
  if (!Number.isInteger(channel) || channel < 0 || channel > 63) throw new RangeError('a channel is an integer from 0 to 63');
  return channel;
}
