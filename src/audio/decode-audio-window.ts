// Decodes one window of a long recording (`startSeconds` .. `startSeconds + seconds`) to whisper's
// PCM. Jobs process hours of audio window by window, so memory stays at one window's samples
// (5 minutes: 19 MB) whatever the recording's length, and no decoded copy is ever written to disk.
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { AudioContainer } from './audio-container.js';
import { DecodeAbortedError } from './audio-errors.js';
import { type AudioInput, audioSourceOf } from './audio-source.js';
import { settleSourceRun } from './audio-source-failure.js';
import { ffmpegDecodeArgs } from './decode-audio.js';
import { throwIfDecodeFailed } from './decode-failure.js';
import { runAudioTool } from './ffmpeg-process.js';
import { GrowableSampleBuffer } from './growable-sample-buffer.js';

export interface DecodeWindowOptions {
  startSeconds: number;
  seconds: number;
  container: AudioContainer;
  timeoutMs: number;
  signal?: AbortSignal;
  ffmpegPath?: string;
  /** Decode only this channel (0-based, `multichannel`); absent: the mix. */
  channel?: number;
}

/**
 * The window's samples; fewer than asked at the end of the recording, and an empty array when the
 * window starts at or past the end. Errors are the typed audio errors of decodeAudio, and for a URL
 * source AudioSourceUnavailableError when storage fails (never a silently short window: a body cut
 * short that ffmpeg cannot resume is reported, not taken for the end of the recording).
 */
export async function decodeAudioWindow(input: AudioInput, options: DecodeWindowOptions): Promise<Float32Array> {
  const { startSeconds, seconds, timeoutMs, signal } = options;
  if (!(seconds > 0) || !(startSeconds >= 0)) throw new RangeError('a window has a non-negative start and a positive length');
  if (signal?.aborted) throw new DecodeAbortedError(signal.reason);
  const wanted = Math.round(seconds * SAMPLE_RATE);
  // ffmpeg stops at -t itself; the margin only keeps a last chunk that overshoots by a frame.
  const samples = new GrowableSampleBuffer(wanted, wanted + SAMPLE_RATE);
  const source = audioSourceOf(input);
  const run = await runAudioTool({
    command: options.ffmpegPath ?? 'ffmpeg',
    args: ffmpegDecodeArgs(source, options.container, seconds, startSeconds, 'float', options.channel),
    timeoutMs,
    signal,
    onStdout: (chunk) => (samples.append(chunk) ? 'continue' : 'stop'),
  });
  const ending = settleSourceRun(run, source);
  // `stopped`: the window is full — the expected way for a window to end.
  throwIfDecodeFailed(ending, timeoutMs);
  const pcm = samples.toFloat32Array();
  return pcm.length > wanted ? pcm.slice(0, wanted) : pcm;
}
