// The voice activity detection parameters: their defaults, declared once, and their checks. The addon
// takes every field explicitly (native/vad-options.cc) so that no default hides in C++.
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { NativeVadParams } from './native-addon.js';

export type VadParams = NativeVadParams;

/**
 * whisper.cpp's whisper_vad_default_params() (which are Silero's own get_speech_timestamps defaults),
 * except maxSpeechDurationS, and the input levelled.
 *
 * maxSpeechDurationS: whisper.cpp's default is FLT_MAX (never split). We split at 30 s, Whisper's
 * window: whisper.cpp sizes the split so that a *padded* segment is at most this long, so every region
 * fits one encoder window and can be packed or decoded without being cut again blindly. The split
 * falls at the last pause of at least 98 ms inside the segment; only 30 s of speech without such a
 * pause is cut mid-sound, which dictation practically never produces.
 *
 * levelTargetDb, maxGainDb, levelWindowMs: Silero's probabilities fall with the input's level. A
 * talker a few metres from the microphone is 20-35 dB below a close one, and at -45 dBFS in a
 * reverberant, noisy room Silero v6 found half the speech of a generated far-field recording, at -55
 * dBFS a fifth (`bench speech-detection`); from -10 to -40 dBFS it finds all of it. Its recurrent state
 * also judges speech against what it heard before: a far talker 25 dB below a near one who spoke just
 * before was found 0.18 of the time, though found whole alone. So the VAD hears each stretch of 3 s
 * (a turn or two; measured on the frames around each frame) raised until its gated level (the loudness
 * of its active part: native/speech-level.h) is -25 dBFS, the middle of that range and where
 * close-talk recordings sit; a window of 10 s found 0.84 of that far talker, 3 s all of it. Only
 * raised: louder audio is already in range. At most by 40 dB: speech at -65 dBFS still reaches the
 * target, and below that a recording is a few bits of quantisation whose noise raising would only
 * amplify. Noise, clicks, bursts and music raised to speech level stay non-speech to Silero
 * (test/engine/vad-levelling.test.ts). The whisper decoder needs no such help: it normalises each
 * window's spectrum itself.
 */
export const DEFAULT_VAD_PARAMS: Readonly<VadParams> = Object.freeze({
  threshold: 0.5,
  minSpeechDurationMs: 250,
  minSilenceDurationMs: 100,
  maxSpeechDurationS: 30,
  speechPadMs: 30,
  levelTargetDb: -25,
  maxGainDb: 40,
  levelWindowMs: 3000,
});

/** Fixed by the model format (the addon refuses files with another window). */
const SILERO_FRAME_SAMPLES = 512;
/** whisper.cpp reads any maxSpeechDurationS above 100000 s as "no limit". */
const NO_LIMIT_SECONDS = 1e6;

// whisper.cpp converts milliseconds to samples in 32-bit int arithmetic: beyond this it overflows.
const MAX_DURATION_MS = 100_000;

/**
 * The defaults with `overrides` applied, checked; a RangeError names the first bad field.
 * maxSpeechDurationS may be Infinity (never split, whisper.cpp's own default).
 */
export function resolveVadParams(overrides: Partial<VadParams> = {}): VadParams {
  const params: VadParams = { ...DEFAULT_VAD_PARAMS };
  for (const [key, value] of Object.entries(overrides) as [keyof VadParams, number | undefined][]) {
    if (!(key in DEFAULT_VAD_PARAMS)) throw new RangeError(`unknown VAD parameter ${String(key)}`);
    if (value !== undefined) params[key] = value;
  }
  const { threshold, minSpeechDurationMs, minSilenceDurationMs, maxSpeechDurationS, speechPadMs, levelTargetDb, maxGainDb, levelWindowMs } = params;
  if (!(Number.isFinite(threshold) && threshold >= 0 && threshold <= 1)) throw new RangeError('VAD threshold must be within 0..1');
  if (!(Number.isFinite(levelTargetDb) && levelTargetDb >= -100 && levelTargetDb <= 0)) throw new RangeError('VAD levelTargetDb must be within -100..0 dBFS');
  if (!(Number.isFinite(maxGainDb) && maxGainDb >= 0 && maxGainDb <= 60)) throw new RangeError('VAD maxGainDb must be within 0..60 dB (0: not levelled)');
  for (const [name, ms] of [
    ['minSpeechDurationMs', minSpeechDurationMs],
    ['minSilenceDurationMs', minSilenceDurationMs],
    ['speechPadMs', speechPadMs],
    ['levelWindowMs', levelWindowMs],
  ] as const) {
    const least = name === 'levelWindowMs' ? 1 : 0;
    if (!Number.isInteger(ms) || ms < least || ms > MAX_DURATION_MS) throw new RangeError(`VAD ${name} must be an integer within ${least}..${MAX_DURATION_MS}`);
  }
  if (maxSpeechDurationS !== Number.POSITIVE_INFINITY) {
    // Whole seconds, since whisper.cpp truncates the fraction; and long enough to leave at least a
    // second of speech beside one frame and both pads, below which whisper.cpp stops splitting at all.
    const least = Math.ceil((SILERO_FRAME_SAMPLES + (2 * SAMPLE_RATE * speechPadMs) / 1000) / SAMPLE_RATE) + 1;
    if (!Number.isInteger(maxSpeechDurationS) || maxSpeechDurationS < least) {
      throw new RangeError(`VAD maxSpeechDurationS must be a whole number of seconds, at least ${least} (or Infinity: never split)`);
    }
  }
  return params;
}

/** What the addon takes: every field explicit and finite. */
export function nativeVadParams(params: VadParams): NativeVadParams {
  return { ...params, maxSpeechDurationS: Math.min(params.maxSpeechDurationS, NO_LIMIT_SECONDS) };
}
