import type { AudioContainer } from './audio-container.js';
import { DecodeAbortedError, DecodeTimeoutError, UndecodableAudioError } from './audio-errors.js';
import { type AudioInput, audioSourceOf } from './audio-source.js';
import { settleSourceRun } from './audio-source-failure.js';
import { safeInputArgs } from './ffmpeg-input-args.js';
import { FFMPEG_SAFETY_ARGS, FFMPEG_THREAD_ARGS } from './ffmpeg-limits.js';
import { runAudioTool } from './ffmpeg-process.js';

/**
 * Measures the first audio stream's duration by reading every packet, for files whose header has no
 * trustworthy duration (WebM from a browser's MediaRecorder, raw ADTS AAC, MP3 without a Xing/VBRI
 * header, WAV written to a pipe). It stream-copies packets into ffmpeg's null muxer: demuxing only,
 * no decoding, so it costs about one sequential read of the file rather than a full decode. The
 * result is the last packet's timestamp as reported by `-progress`, which may be short of the true
 * end by one frame (tens of ms) and includes encoder padding. Over a URL it is one sequential read
 * of the object; a storage failure is AudioSourceUnavailableError.
 */
export async function measureDurationByPacketScan(
  input: AudioInput,
  container: AudioContainer,
  options: { timeoutMs: number; signal?: AbortSignal; ffmpegPath?: string },
): Promise<number> {
  const source = audioSourceOf(input);
  const args = [
    '-nostdin',
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostats',
    ...FFMPEG_THREAD_ARGS,
    ...FFMPEG_SAFETY_ARGS,
    ...safeInputArgs(source, container),
    '-map',
    '0:a:0',
    '-c',
    'copy',
    '-f',
    'null',
    '-progress',
    'pipe:1',
    '-',
  ];

  let lastOutTimeUs: number | null = null;
  let pending = '';
  const run = await runAudioTool({
    command: options.ffmpegPath ?? 'ffmpeg',
    args,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    onStdout: (chunk) => {
      // `-progress` prints key=value lines; only the last out_time_us matters.
      const lines = (pending + chunk.toString('latin1')).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const match = /^out_time_us=(\d+)\s*$/.exec(line);
        if (match) lastOutTimeUs = Number(match[1]);
      }
      // A well-behaved ffmpeg prints a few hundred bytes per half second; anything else is runaway.
      return pending.length > 64 * 1024 ? 'stop' : 'continue';
    },
  });

  const ending = settleSourceRun(run, source);
  switch (ending.kind) {
    case 'timed_out':
      throw new DecodeTimeoutError(options.timeoutMs, ending.stderrTail);
    case 'aborted':
      throw new DecodeAbortedError(ending.reason);
    case 'stopped':
      throw new UndecodableAudioError(`duration scan produced unexpected output; ${ending.stderrTail}`);
    case 'exited':
      if (ending.exitCode !== 0) {
        throw new UndecodableAudioError(`duration scan: ffmpeg exited with ${ending.exitCode ?? ending.exitSignal}: ${ending.stderrTail}`);
      }
  }
  const outTimeUs: number | null = lastOutTimeUs;
  if (outTimeUs === null || outTimeUs <= 0) throw new UndecodableAudioError('duration scan found no audio packets');
  return outTimeUs / 1_000_000;
}
