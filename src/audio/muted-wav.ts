// A copy of a recording with spans of it silenced or toned over (a job's redacted audio,
// src/jobs/job-redacted-audio.ts): one ffmpeg run decodes it to 16 kHz mono 16-bit PCM, and the samples
// are written to a WAV file with those inside the spans zeroed, or replaced by a 1 kHz sine (the
// broadcast bleep: a listener hears that something was removed). Done here rather than by an ffmpeg filter: exact to the sample, no
// filter expression growing with the spans (one argument is at most 128 KiB on Linux), and the spans'
// times never appear on a command line. The file is written whole or removed: never left half-written.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';

import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { AudioContainer } from './audio-container.js';
import { AudioTooLongError, UndecodableAudioError } from './audio-errors.js';
import type { AudioInput } from './audio-source.js';
import { ffmpegDecodeArgs } from './decode-audio.js';
import { throwIfDecodeFailed } from './decode-failure.js';
import { runAudioTool } from './ffmpeg-process.js';
import type { TimeSpan } from './time-spans.js';

const BYTES_PER_SAMPLE = 2;
const WAV_HEADER_BYTES = 44;
/** The file is the service's to keep private (as private-mode.ts makes its blobs). */
const PRIVATE_FILE_MODE = 0o600;
/** What replaces the samples inside the spans. */
export const REDACTION_FILLS = ['silence', 'tone'] as const;
export type RedactionFill = (typeof REDACTION_FILLS)[number];
/** The tone: 1 kHz (16 samples a period at 16 kHz) at a quarter of full scale (-12 dBFS), moderate. */
export const TONE_HZ = 1000;
const TONE_AMPLITUDE = 8192;

export interface MutedWavOptions {
  container: AudioContainer;
  /** Seconds of the recording to silence, sorted and not overlapping (time-spans.ts padAndMergeSpans). */
  spans: readonly TimeSpan[];
  /** `silence` (the default) zeroes the spans; `tone` writes a 1 kHz sine over them. */
  fill?: RedactionFill;
  /** Longer audio fails with `audio_too_long` (judged on the samples produced). */
  maxSeconds: number;
  /** Wall-clock limit; on expiry ffmpeg is killed and the call fails with `decode_timeout`. */
  timeoutMs: number;
  signal?: AbortSignal;
  ffmpegPath?: string;
}

/** Writes the silenced copy to `outputPath` (created: it must not exist). Returns its size and length. */
export async function writeMutedWav(input: AudioInput, outputPath: string, options: MutedWavOptions): Promise<{ bytes: number; seconds: number }> {
  if (!(options.maxSeconds > 0)) throw new RangeError('maxSeconds must be positive');
  const ranges = options.spans.map((s) => [sampleAt(s.start) * BYTES_PER_SAMPLE, sampleAt(s.end) * BYTES_PER_SAMPLE] as const);
  const maxBytes = Math.ceil(options.maxSeconds * SAMPLE_RATE) * BYTES_PER_SAMPLE;
  const fd = openSync(outputPath, 'wx', PRIVATE_FILE_MODE);
  let written = 0;
  let next = 0;
  try {
    // The header's sizes are known only at the end: a placeholder now, the header then.
    writeSync(fd, Buffer.alloc(WAV_HEADER_BYTES));
    const ending = await runAudioTool({
      command: options.ffmpegPath ?? 'ffmpeg',
      args: ffmpegDecodeArgs(input, options.container, options.maxSeconds + 1, 0, 'pcm16le'),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      // Written as it comes (synchronously: a chunk is small, and ffmpeg cannot be paused).
      onStdout: (chunk) => {
        if (written + chunk.length > maxBytes) return 'stop';
        while (next < ranges.length && ranges[next][1] <= written) next += 1;
        for (let i = next; i < ranges.length && ranges[i][0] < written + chunk.length; i += 1) {
          const from = Math.max(0, ranges[i][0] - written);
          const to = Math.min(chunk.length, ranges[i][1] - written);
          if (options.fill === 'tone') writeTone(chunk, from, to, written);
          else chunk.fill(0, from, to);
        }
        writeSync(fd, chunk);
        written += chunk.length;
        return 'continue';
      },
    });
    if (ending.kind === 'stopped') throw new AudioTooLongError(options.maxSeconds, written / (SAMPLE_RATE * BYTES_PER_SAMPLE));
    throwIfDecodeFailed(ending, options.timeoutMs);
    if (written < BYTES_PER_SAMPLE) throw new UndecodableAudioError('ffmpeg produced no samples');
    writeSync(fd, wavHeader(written), 0, WAV_HEADER_BYTES, 0);
    closeSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(outputPath, { force: true });
    throw error;
  }
  return { bytes: WAV_HEADER_BYTES + written, seconds: written / (SAMPLE_RATE * BYTES_PER_SAMPLE) };
}

/**
 * The tone's bytes over `chunk[from, to)`, a chunk that starts `offset` bytes into the samples. Byte by
 * byte: a chunk may end inside a sample. The phase follows the sample's place in the recording, so a
 * span split across chunks is one continuous sine.
 */
function writeTone(chunk: Buffer, from: number, to: number, offset: number): void {
  for (let b = from; b < to; b += 1) {
    const at = offset + b;
    const sample = Math.round(TONE_AMPLITUDE * Math.sin((2 * Math.PI * TONE_HZ * Math.floor(at / BYTES_PER_SAMPLE)) / SAMPLE_RATE)) & 0xffff;
    chunk[b] = at % BYTES_PER_SAMPLE === 0 ? sample & 0xff : sample >> 8;
  }
}

function sampleAt(seconds: number): number {
  return Math.max(0, Math.round(seconds * SAMPLE_RATE));
}

/** The canonical 44-byte header of 16 kHz mono 16-bit PCM with `dataBytes` of samples. */
export function wavHeader(dataBytes: number): Buffer {
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE * BYTES_PER_SAMPLE, 28);
  header.writeUInt16LE(BYTES_PER_SAMPLE, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}
