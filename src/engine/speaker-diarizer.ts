// The seam for who-spoke-when: what the pipeline needs of a diarizer. Today the Engine implements it
// with the native training-free diarizer (native/speakers/); a neural segmentation or embedding
// model would implement the same interface (its C++ counterpart is native/speakers/speaker-embedder.h).

import type { EngineWork } from '../domain/work-classes.js';

/** The most voices ever told apart (the contract: "up to four voices are still detected"). */
export const DIARIZER_MAX_VOICES = 4;

export interface SpeakerTurn {
  /** Seconds from the start of the PCM given. */
  start: number;
  end: number;
  /** 0-based voice index, in order of first appearance. */
  speaker: number;
}

/**
 * A voice's statistics that mean the same in any recording: mean and covariance of its loud frames'
 * cepstra in raw units (native/speakers/voice-profile.h says why, and what the channel does to them).
 * Compared by src/pipeline/voice-matching.ts to name known speakers.
 */
export interface VoiceProfile {
  /** Loud frames (10 ms) the statistics were taken over. */
  frames: number;
  /** FEATURES_PER_FRAME values. */
  mean: Float64Array;
  /** FEATURES_PER_FRAME squared, row-major. */
  covariance: Float64Array;
  /**
   * The same loud frames' natural log-F0 where voiced: how many, their mean and variance. Absent from
   * profiles enrolled before pitch was kept (they are compared on the cepstra alone).
   */
  pitch?: VoicePitch;
}

export interface VoicePitch {
  frames: number;
  mean: number;
  variance: number;
}

export interface SpeakerDiarization {
  /** In time order; within the speech regions given, except the pauses of up to TURN_PAUSE_SECONDS a turn holds (turn-pauses.ts). */
  turns: SpeakerTurn[];
  /** Distinct voices detected (0 without speech, at most maxVoices). */
  voices: number;
  /** profiles[v] is voice v's (one per voice). */
  profiles: VoiceProfile[];
  timings: { totalMs: number; stages: DiarizationStages };
}

/** The diarizer's stages in the order they run (native/speakers/diarizer.h DiarizationStageTimings). */
export const DIARIZATION_STAGES = [
  'cepstra',
  'pitch',
  'segmentation',
  'embedding',
  'projection',
  'clustering',
  'stopping',
  'resegmentation',
  'profiles',
] as const;

/**
 * Milliseconds per stage of the diarizer: cepstra and pitch are 0 when the caller gave features
 * (speakerFeatures computed them); the rest of totalMs is the worker's hand-off.
 */
export type DiarizationStages = Record<(typeof DIARIZATION_STAGES)[number], number>;

/** No time in any stage: a diarization of no speech, which never reaches the diarizer. */
export const NO_STAGE_TIME: Readonly<DiarizationStages> = Object.freeze(Object.fromEntries(DIARIZATION_STAGES.map((stage) => [stage, 0])) as DiarizationStages);

/** Who spoke when in a recording without speech regions: nobody (the diarizer is not called). */
export function noSpeakers(): SpeakerDiarization {
  return { turns: [], voices: 0, profiles: [], timings: { totalMs: 0, stages: { ...NO_STAGE_TIME } } };
}

/**
 * The diarizer's first stage over a stretch of audio, kept so that a recording too long to hold as PCM
 * can be diarized at once from its windows (joinSpeakerFeatures). A neural embedder would keep its own.
 */
export interface SpeakerFeatures {
  /** 10 ms frames; frame t starts t / 100 s into the stretch. */
  frames: number;
  /** FEATURES_PER_FRAME numbers per frame, zero outside the speech regions. */
  values: Float32Array;
  /** Per frame: 0 when silent (below -70 dBFS), else its loudness in whole dB above that floor (1 to 255). */
  audible: Uint8Array;
  /** Per frame: the natural log of its fundamental frequency (Hz) when voiced, else 0. */
  pitch: Float32Array;
}

export const FEATURE_FRAMES_PER_SECOND = 100;
export const FEATURES_PER_FRAME = 19;

export interface SpeakerDiarizer {
  /** Features of one window of a recording (regions: seconds from the window's first sample). */
  speakerFeatures(
    pcm: Float32Array,
    regions: ReadonlyArray<{ start: number; end: number }>,
    call?: { signal?: AbortSignal; work?: EngineWork },
  ): Promise<SpeakerFeatures>;
  /** Who spoke when over a recording, given as its PCM or as its joined features. */
  diarize(
    input: Float32Array | SpeakerFeatures,
    regions: ReadonlyArray<{ start: number; end: number }>,
    /** minVoices: a caller who knows more voices speak has the diarizer split to at least that many, when it found them. */
    options?: { maxVoices?: number; minVoices?: number },
    call?: { signal?: AbortSignal; work?: EngineWork },
  ): Promise<SpeakerDiarization>;
}

/**
 * One recording's features from its windows: window k's frames are placed at its start. Windows start
 * on the frame grid (a multiple of 10 ms), and each must reach 15 ms past the next one's start (the
 * frame length is 25 ms) for its last frame to be whole; frames beyond `frames` of a window are dropped.
 */
export class SpeakerFeatureCanvas {
  readonly features: SpeakerFeatures;

  constructor(seconds: number) {
    const frames = Math.max(0, Math.ceil(seconds * FEATURE_FRAMES_PER_SECOND));
    this.features = { frames, values: new Float32Array(frames * FEATURES_PER_FRAME), audible: new Uint8Array(frames), pitch: new Float32Array(frames) };
  }

  /** Places a window's features (starting `startSeconds` into the recording), keeping at most `keepFrames` of them. */
  place(startSeconds: number, window: SpeakerFeatures, keepFrames = window.frames): void {
    const offset = Math.round(startSeconds * FEATURE_FRAMES_PER_SECOND);
    if (Math.abs(offset - startSeconds * FEATURE_FRAMES_PER_SECOND) > 1e-6) throw new RangeError('a window starts on the 10 ms frame grid');
    const count = Math.max(0, Math.min(keepFrames, window.frames, this.features.frames - offset));
    this.features.values.set(window.values.subarray(0, count * FEATURES_PER_FRAME), offset * FEATURES_PER_FRAME);
    this.features.audible.set(window.audible.subarray(0, count), offset);
    this.features.pitch.set(window.pitch.subarray(0, count), offset);
  }
}
