// What `svc-stt bench` prints: the figures as one JSON object (the last line of output, for scripts)
// and, before it, the same figures for a person: what was measured, a table, what the columns mean.
import type { ModelHeader } from '../models/model-header.js';
import { type BenchClip, clipSeconds } from './bench-audio.js';
import type { BenchPoolShape } from './bench-pool-shapes.js';
import type { PoolShapeThroughput } from './pool-shape-throughput.js';
import { textTable } from './text-table.js';

export interface BenchSetup {
  model: string;
  header: ModelHeader;
  /** The --audio files; none when the speech was generated. */
  files: readonly string[];
  clips: readonly BenchClip[];
  calls: number;
  maxTokens: number;
  cores: number;
  /** The addon's compute devices (`['CPU']`, or `['CUDA0', 'CPU']` in a CUDA build that found a GPU). */
  devices: readonly string[];
}

export interface BenchShapeFigures {
  workers: number;
  threads: number;
  /** The shape `svc-stt serve` uses on this machine. */
  default: boolean;
  load_ms: number;
  wall_s: number;
  /** Median of one call's time over its audio's length. */
  rtf: number;
  audio_s_per_wall_s: number;
  peak_rss_mib: number;
}

export interface BenchSummary {
  bench: 'cli';
  model: string;
  model_arch: string;
  model_weights: string;
  model_mb: number;
  audio: readonly string[] | 'generated';
  clip_seconds: number[];
  calls: number;
  /** Audio in one shape's batch of calls. */
  audio_seconds: number;
  max_tokens: number;
  decoding: string;
  cores: number;
  devices: readonly string[];
  shapes: BenchShapeFigures[];
}

export function benchSummary(setup: BenchSetup, results: ReadonlyArray<{ shape: BenchPoolShape; result: PoolShapeThroughput }>): BenchSummary {
  return {
    bench: 'cli',
    model: setup.model,
    model_arch: setup.header.arch,
    model_weights: setup.header.weightType,
    model_mb: round(setup.header.fileSize / 1e6, 1),
    audio: setup.files.length > 0 ? setup.files : 'generated',
    clip_seconds: setup.clips.map((clip) => round(clipSeconds(clip), 2)),
    calls: setup.calls,
    audio_seconds: round(results[0]?.result.audioSeconds ?? 0, 2),
    max_tokens: setup.maxTokens,
    decoding: 'greedy, no temperature fallback',
    cores: setup.cores,
    devices: setup.devices,
    shapes: results.map(({ shape, result }) => ({
      workers: shape.workers,
      threads: shape.threadsPerWorker,
      default: shape.isDefault,
      load_ms: round(result.loadMs, 0),
      wall_s: round(result.wallSeconds, 3),
      rtf: round(result.realTimeFactor, 4),
      audio_s_per_wall_s: round(result.audioSecondsPerWallSecond, 2),
      peak_rss_mib: round(result.peakRssBytes / 2 ** 20, 1),
    })),
  };
}

export function humanBenchReport(summary: BenchSummary, clips: readonly BenchClip[]): string {
  const audio =
    summary.audio === 'generated'
      ? `speech generated with espeak-ng, ${clipSeconds(clips[0]).toFixed(1)} s`
      : clips.map((clip) => `${clip.name} (${clipSeconds(clip).toFixed(1)} s)`).join(', ');
  const heading = [
    `model    ${summary.model} (whisper ${summary.model_arch}, ${summary.model_weights}, ${summary.model_mb} MB)`,
    `audio    ${audio}`,
    `calls    ${summary.calls} per shape (${summary.audio_seconds} s of audio), submitted at once; English, greedy decoding`,
    `         with no temperature fallback, at most ${summary.max_tokens} tokens per segment (--max-tokens): texts may be cut,`,
    '         the figures are for speed',
    `machine  ${summary.cores} cores; compute on ${summary.devices.join(', ')}`,
  ];
  const table = textTable(
    ['workers x threads', 'load ms', 'wall s', 'real-time factor', 'audio s per wall s', 'peak RSS MiB'],
    summary.shapes.map((s) => [
      `${s.default ? '* ' : ''}${s.workers} x ${s.threads}`,
      s.load_ms,
      s.wall_s.toFixed(2),
      s.rtf.toFixed(3),
      s.audio_s_per_wall_s.toFixed(2),
      s.peak_rss_mib.toFixed(1),
    ]),
  );
  const notes = [
    "real-time factor: one call's time over its audio's length (median; below 1 is faster than real time).",
    'audio s per wall s: what the whole pool gets through. peak RSS: the whole process, sampled.',
    ...(summary.shapes.some((s) => s.default) ? ['* the shape `svc-stt serve` uses on this machine (SVC_WORKERS and SVC_THREADS_PER_WORKER change it).'] : []),
  ];
  return `${heading.join('\n')}\n\n${table}\n${notes.join('\n')}\n`;
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
