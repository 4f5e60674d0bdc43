import type { AudioContainer } from './audio-container.js';
import { DecodeAbortedError, DecodeTimeoutError, UndecodableAudioError } from './audio-errors.js';
import { type AudioInput, audioSourceOf } from './audio-source.js';
import { settleSourceRun } from './audio-source-failure.js';
import { safeInputArgs } from './ffmpeg-input-args.js';
import { FFMPEG_SAFETY_ARGS, FFMPEG_THREAD_ARGS } from './ffmpeg-limits.js';
import { runAudioTool } from './ffmpeg-process.js';
import { identifyContainer } from './identify-container.js';
import { measureDurationByPacketScan } from './measure-duration.js';

export interface AudioProbe {
  durationSeconds: number;
  /**
   * 'container': read from the file's headers. 'measured': the headers had no duration, or ffmpeg
   * could only estimate it from the bitrate, so every packet was scanned (see measure-duration.ts).
   */
  durationSource: 'container' | 'measured';
  container: AudioContainer;
  /** ffmpeg's codec name of the first audio stream, e.g. 'mp3', 'aac', 'opus', 'pcm_s16le'. */
  codec: string;
  sampleRate: number;
  channels: number;
  /** Bits per second, when the file states or implies it. */
  bitRate?: number;
}

export interface ProbeAudioOptions {
  /** Wall-clock budget for the whole probe, including a duration scan when one is needed. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** The container, when the caller has already sniffed these bytes; required for a URL source. */
  container?: AudioContainer;
  ffprobePath?: string;
  ffmpegPath?: string;
}

/**
 * Describes the first audio stream of a file or URL source. Durations here come from headers and
 * can lie; the decoder enforces the real limit on what it actually produces. A URL source whose
 * storage fails is AudioSourceUnavailableError.
 */
export async function probeAudio(input: AudioInput, options: ProbeAudioOptions): Promise<AudioProbe> {
  const deadline = Date.now() + options.timeoutMs;
  const source = audioSourceOf(input);
  const container = await identifyContainer(source, options.container);

  const stdout = new BoundedText(PROBE_OUTPUT_LIMIT_BYTES);
  const bitrateEstimate = new TextWatch(BITRATE_ESTIMATE_WARNING);
  const run = await runAudioTool({
    command: options.ffprobePath ?? 'ffprobe',
    args: ffprobeArgs(source, container),
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    onStdout: (chunk) => stdout.push(chunk),
    onStderr: (chunk) => bitrateEstimate.push(chunk),
  });

  const ending = settleSourceRun(run, source);
  switch (ending.kind) {
    case 'timed_out':
      throw new DecodeTimeoutError(options.timeoutMs, ending.stderrTail);
    case 'aborted':
      throw new DecodeAbortedError(ending.reason);
    case 'stopped':
      throw new UndecodableAudioError('ffprobe output exceeded its limit');
    case 'exited':
      if (ending.exitCode !== 0) {
        throw new UndecodableAudioError(`ffprobe exited with ${ending.exitCode ?? ending.exitSignal}: ${ending.stderrTail}`);
      }
  }

  const report = parseReport(stdout.text());
  const stream = report.streams?.[0];
  if (stream === undefined) throw new UndecodableAudioError('no audio stream');
  const sampleRate = positiveNumber(stream.sample_rate);
  const channels = positiveNumber(stream.channels);
  // ffprobe lists streams whose codec this ffmpeg cannot decode, without a codec name or parameters.
  if (!stream.codec_name || sampleRate === undefined || channels === undefined) {
    throw new UndecodableAudioError(`audio stream without a decodable codec (${stream.codec_name ?? 'unknown'})`);
  }

  const durationFromHeaders = positiveNumber(stream.duration) ?? positiveNumber(report.format?.duration);
  const headersAreGuessing = bitrateEstimate.seen;
  let durationSeconds: number;
  let durationSource: AudioProbe['durationSource'];
  if (durationFromHeaders !== undefined && !headersAreGuessing) {
    durationSeconds = durationFromHeaders;
    durationSource = 'container';
  } else {
    durationSeconds = await measureDurationByPacketScan(source, container, {
      timeoutMs: Math.max(1, deadline - Date.now()),
      signal: options.signal,
      ffmpegPath: options.ffmpegPath,
    });
    durationSource = 'measured';
  }

  const bitRate = positiveNumber(stream.bit_rate) ?? positiveNumber(report.format?.bit_rate);
  return {
    durationSeconds,
    durationSource,
    container,
    codec: stream.codec_name,
    sampleRate,
    channels,
    ...(bitRate === undefined ? {} : { bitRate }),
  };
}

/**
 * libavformat's warning (AV_LOG_WARNING) when a demuxer found no duration and it divided the file size
 * by a bitrate instead: exact for CBR, wrong for VBR and for ADTS. If a future ffmpeg rewords it, the
 * probe falls back to trusting the estimate, which the decoder's own cap still bounds.
 */
const BITRATE_ESTIMATE_WARNING = 'Estimating duration from bitrate';

/** A handful of fields for one stream: a few hundred bytes. Anything larger is not ffprobe behaving. */
const PROBE_OUTPUT_LIMIT_BYTES = 256 * 1024;

function ffprobeArgs(input: AudioInput, container: AudioContainer): string[] {
  return [
    // 'warning' rather than 'error' so that BITRATE_ESTIMATE_WARNING reaches the stderr tail.
    '-v',
    'warning',
    '-hide_banner',
    ...FFMPEG_THREAD_ARGS,
    ...FFMPEG_SAFETY_ARGS,
    ...safeInputArgs(input, container),
    '-select_streams',
    'a',
    // Named entries instead of -show_format/-show_streams: tags (metadata) can be megabytes of
    // client-controlled text we neither need nor want in memory.
    '-show_entries',
    'format=format_name,duration,bit_rate:stream=index,codec_name,sample_rate,channels,duration,bit_rate',
    '-print_format',
    'json',
  ];
}

interface FfprobeReport {
  streams?: Array<{
    codec_name?: string;
    sample_rate?: string;
    channels?: number;
    duration?: string;
    bit_rate?: string;
  }>;
  format?: { format_name?: string; duration?: string; bit_rate?: string };
}

function parseReport(json: string): FfprobeReport {
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === 'object' && value !== null) return value as FfprobeReport;
  } catch {
    // fall through: malformed output is treated like a failed probe
  }
  throw new UndecodableAudioError('ffprobe printed no usable report');
}

function positiveNumber(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(number) && number > 0 ? number : undefined;
}

class BoundedText {
  private chunks: Buffer[] = [];
  private length = 0;

  constructor(private readonly limit: number) {}

  /** 'stop' once the limit is passed, so the producer can be killed. */
  push(chunk: Buffer): 'continue' | 'stop' {
    this.length += chunk.length;
    if (this.length > this.limit) return 'stop';
    this.chunks.push(chunk);
    return 'continue';
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Spots a phrase in a stream without keeping the stream, even when a chunk boundary splits it. */
class TextWatch {
  seen = false;
  private carry = '';

  constructor(private readonly phrase: string) {}

  push(chunk: Buffer): void {
    if (this.seen) return;
    const text = this.carry + chunk.toString('latin1');
    this.seen = text.includes(this.phrase);
    this.carry = text.slice(-this.phrase.length);
  }
}
