// The seam for who-spoke-when: what the pipeline needs of a diarizer. Today the Engine implements it
// with the native training-free diarizer (native/speakers/); a neural segmentation or embedding
// model would implement the same interface (its C++ counterpart is native/speakers/speaker-embedder.h).

/** The most voices ever told apart (the contract: "up to four voices are still detected"). */
export const DIARIZER_MAX_VOICES = 4;

export interface SpeakerTurn {
  /** Seconds from the start of the PCM given. */
  start: number;
  end: number;
  /** 0-based voice index, in order of first appearance. */
  speaker: number;
}

export interface SpeakerDiarization {
  /** In time order, within the speech regions given. */
  turns: SpeakerTurn[];
  /** Distinct voices detected (0 without speech, at most maxVoices). */
  voices: number;
  timings: { totalMs: number };
}

export interface SpeakerDiarizer {
  diarize(
    pcm: Float32Array,
    regions: ReadonlyArray<{ start: number; end: number }>,
    options?: { maxVoices?: number },
    call?: { signal?: AbortSignal },
  ): Promise<SpeakerDiarization>;
}
