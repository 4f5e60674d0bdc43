// The benches that measure the engine, speech detection, speakers and the text stages in-process, each
// smoke-run at its smallest (test/bench/smoke-bench.ts): the micro model where the bench takes one, one
// round, seconds of audio. Those that need the real development recordings (../shared/dev-speech,
// never committed; CI has them) are skipped where they are missing, saying so.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

import t from 'tap';

import { ROOT, smokeBench } from './smoke-bench.js';

const cores = availableParallelism();
/** bench/diarization-real.ts's default folder. */
const DEV_RECORDINGS_DIR = join(ROOT, '..', 'shared', 'dev-speech');

await smokeBench(t, 'formatting', ['--rounds', '1'], {
  exact: Number,
  value_changes: Number,
  sentences: Number,
  unchanged_kept: Number,
  unchanged: Number,
  words_per_audio_hour: Number,
  ms_per_audio_hour: Number,
  transcript_ms_per_audio_hour: Number,
  yardstick_textwords_ms: Number,
  ratio_to_yardstick: Number,
  rounds: 1,
});

await smokeBench(t, 'redaction', ['--rounds', '1'], {
  recall: Number,
  precision: Number,
  keep_lost: Number,
  ms_per_audio_hour: Number,
  transcript_ms_per_audio_hour: Number,
  share_of_transcription: Number,
  yardstick_ms_per_audio_hour: Number,
  share_of_h200_transcription: Number,
  first_call_ms: Number,
  sentences: Number,
  identifier_tokens: Number,
  keep_tokens: Number,
  per_class: Object,
  rounds: 1,
});

await smokeBench(t, 'metering', ['--records', '3', '--sizes', '0,100'], {
  records: 3,
  sizes: [
    { events: 0, record_ms: Number, insert_ms: Number, ratio: Number },
    { events: 100, record_ms: Number, insert_ms: Number, ratio: Number },
  ],
});

await smokeBench(t, 'engine', ['--rounds', '1', '--seconds', '2', '--arch', 'micro'], {
  ratio: Number,
  ratio_wall: Number,
  addon_ms: Number,
  cli_ms: Number,
  cli_wall_ms: Number,
  arch: 'micro',
  seed: Number,
  audio_seconds: 2,
  threads: Number,
  rounds: 1,
});

await smokeBench(t, 'pool', ['--arch', 'micro', '--calls', '2', '--seconds', '2', '--max-tokens', '4'], {
  [`w1x${cores}_audio_s_per_s`]: Number,
  [`w${cores}x1_audio_s_per_s`]: Number,
  ratio: Number,
  arch: 'micro',
  calls: 2,
  audio_seconds: 2,
});

await smokeBench(t, 'parallel', ['--rounds', '1', '--seconds', '14', '--arch', 'micro', '--max-tokens', '4'], {
  ratio: Number,
  identical: Boolean,
  parallel_ms: Number,
  sequential_ms: Number,
  workers: Number,
  windows: Number,
  audio_seconds: Number,
  arch: 'micro',
  rounds: 1,
});

await smokeBench(t, 'memory', ['--arch', 'micro'], { rss1_mb: Number, rss2_mb: Number, model_mb: Number, growth_ratio: Number, arch: 'micro' });

await smokeBench(t, 'service', ['--rounds', '1', '--seconds', '2', '--arch', 'micro', '--max-tokens', '4'], {
  ratio: Number,
  service_ms: Number,
  engine_ms: Number,
  same_text: Boolean,
  vad: true,
  arch: 'micro',
  audio_seconds: 2,
  rounds: 1,
});

await smokeBench(t, 'language', ['--rounds', '1', '--arch', 'micro', '--max-tokens', '4', '--pieces', '1'], {
  ratio: Number,
  auto_ms: Number,
  explicit_ms: Number,
  utterances: Number,
  languages: Number,
  arch: 'micro',
  seed: Number,
  threads: Number,
  rounds: 1,
});

await smokeBench(t, 'vocabulary', ['--rounds', '1', '--arch', 'micro', '--seconds', '5'], {
  ratio_when_check_passes: Number,
  ratio_when_fallback: Number,
  without_ms: Number,
  passes_ms: Number,
  fallback_ms: Number,
  stage_ms: Object,
  decoder_steps: Object,
  windows: Number,
  fallback_windows: Number,
  arch: 'micro',
  seed: Number,
  threads: Number,
  rounds: 1,
});

await smokeBench(t, 'silence', ['--rounds', '1', '--arch', 'micro', '--pieces', '1'], {
  ratio: Number,
  ratio_no_vad: Number,
  pipeline_ms: Number,
  no_vad_ms: Number,
  speech_only_ratio: Number,
  speech_only_vad_ms: Number,
  speech_only_vad_share: Number,
  cli_ms: Number,
  speech_seconds: Number,
  audio_seconds: Number,
  arch: 'micro',
  seed: Number,
  threads: Number,
  rounds: 1,
});

// Tiny: the micro model has no alignment heads, so DTW would have nothing to align with.
await smokeBench(t, 'word-alignment', ['--rounds', '1', '--arch', 'tiny', '--seconds', '2', '--max-tokens', '4'], {
  ratio: Number,
  no_flash_attn_ratio: Number,
  tokens_ms: Number,
  dtw_ms: Number,
  arch: 'tiny',
  seconds: 2,
  threads: Number,
  rounds: 1,
});

await smokeBench(t, 'multichannel', ['--seeds', '1', '--turns', '2'], {
  der_mean: Number,
  der_worst: Number,
  der_bar: Number,
  multichannel_ms: Number,
  mono_ms: Number,
  time_ratio: Number,
  seeds: 1,
  model: String,
});

await smokeBench(t, 'peer', ['--rounds', '1', '--concurrent-rounds', '1', '--seconds', '2', '--clients', '1', '--requests', '1', '--arch', 'micro'], {
  alone: Number,
  concurrent: Number,
  alone_ms: Number,
  peer_alone_ms: Number,
  concurrent_wall_ms: Number,
  peer_concurrent_wall_ms: Number,
  worst_latency_ms: Number,
  peer_worst_latency_ms: Number,
  chars: Number,
  peer_chars: Number,
  encoder_runs: Number,
  peer_encoder_runs: Number,
  decoder_steps: Number,
  peer_decoder_steps: Number,
  like_with_like: Boolean,
  arch: 'micro',
  audio_seconds: 2,
  cores,
  clients: 1,
  requests: 1,
});

const noRecordings = existsSync(DEV_RECORDINGS_DIR) ? false : `no development recordings in ${DEV_RECORDINGS_DIR} (../shared is not here)`;

await smokeBench(t, 'diarization-short', ['--seeds', '1', '--lone-seeds', '1', '--three-seeds', '1'], {
  split_2: Number,
  split_2_4s: Number,
  files_2_4s: Number,
  der_2: Number,
  exact_3: Number,
  der_3: Number,
  kept_1: Number,
  diarize_ms: Number,
  seeds: 1,
});

await smokeBench(t, 'diarization', ['--rounds', '1', '--arch', 'micro', '--max-tokens', '4', '--seeds', '1', '--pairs', '1', '--short-seeds', '1'], {
  der_2: Number,
  der_3: Number,
  der_4: Number,
  short_split: Number,
  dev: Object,
  overhead: Number,
  stages_ms_per_minute: Object,
  named_correctly: Number,
  false_attribution: Number,
  reference_seconds: 9,
  reference_channel: 'same',
  files: 3,
  audio_seconds: Number,
  arch: 'micro',
  seed: Number,
  threads: Number,
  rounds: 1,
});

await smokeBench(t, 'diarization-real', ['--dir', DEV_RECORDINGS_DIR], { files: Number }, { skip: noRecordings });

// The real recordings are among its cases where they are here; the generated ones are always.
await smokeBench(t, 'speech-detection', ['--rounds', '1'], {
  recall_generated_far: Number,
  precision_generated_far: Number,
  recall_generated_far_after_near: Number,
  false_alarm_seconds: Number,
  vad_ms_per_audio_minute: Number,
  collar_s: 0.25,
  max_gain_db: Number,
});
