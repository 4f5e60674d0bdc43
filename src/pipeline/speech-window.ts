// Which 30-second window of a recording's start bears speech: the window the dominant language is
// detected from when a job omits `language` (contract, behavioural rule 2: the first speech-bearing
// window, looking at up to four when the recording begins with silence).
//
// The test is energy, not a voice detector. The window is cut into 100 ms frames; a frame is loud
// when its RMS is at least SPEECH_FRAME_RMS (0.01 of full scale, -40 dBFS), and a window bears speech
// when it holds at least MIN_SPEECH_SECONDS (0.5 s) of loud frames. Why these values: speech recorded
// at any usable level sits between about -35 and -12 dBFS over its voiced frames, while digital
// silence, dither and quiet room tone stay below -50 dBFS, so -40 dBFS leaves a margin on both sides;
// half a second of loud frames is shorter than any spoken phrase but longer than a click, a cough of
// the microphone or a plosive pop. A recording that opens with steady loud noise (a fan next to the
// microphone) passes the test too: detection then runs on that window, as whisper would anyway.

/** Length of one detection window: whisper's own input window. */
export const DETECTION_WINDOW_SECONDS = 30;
/** Windows looked at from the start before concluding the opening bears no speech. */
export const MAX_DETECTION_WINDOWS = 4;
/** RMS (of full scale 1.0) from which a frame counts as loud: -40 dBFS. */
export const SPEECH_FRAME_RMS = 0.01;
/** Loud audio a window must hold to bear speech. */
export const MIN_SPEECH_SECONDS = 0.5;
const FRAME_SECONDS = 0.1;

export interface SpeechWindow {
  /** 0 for the first 30 seconds, 1 for the next, and so on. */
  index: number;
  startSeconds: number;
  /** The window's samples (a view into the recording's, not a copy). */
  pcm: Float32Array;
}

/**
 * The first of the opening MAX_DETECTION_WINDOWS windows of `pcm` (mono, `sampleRate` Hz, starting at
 * the recording's start) that bears speech; null when none does. A last window shorter than 30 s is
 * looked at like the others.
 */
export function firstSpeechWindow(pcm: Float32Array, sampleRate: number): SpeechWindow | null {
  const windowLength = DETECTION_WINDOW_SECONDS * sampleRate;
  for (let index = 0; index < MAX_DETECTION_WINDOWS; index++) {
    const start = index * windowLength;
    if (start >= pcm.length) break;
    const window = pcm.subarray(start, Math.min(pcm.length, start + windowLength));
    if (bearsSpeech(window, sampleRate)) return { index, startSeconds: index * DETECTION_WINDOW_SECONDS, pcm: window };
  }
  return null;
}

function bearsSpeech(window: Float32Array, sampleRate: number): boolean {
  const frameLength = Math.round(FRAME_SECONDS * sampleRate);
  const needed = Math.ceil(MIN_SPEECH_SECONDS / FRAME_SECONDS);
  const threshold = SPEECH_FRAME_RMS * SPEECH_FRAME_RMS * frameLength;
  let loud = 0;
  // Whole frames only: a trailing fragment shorter than a frame is too short to matter.
  for (let start = 0; start + frameLength <= window.length; start += frameLength) {
    let energy = 0;
    for (let i = start; i < start + frameLength; i++) energy += window[i] * window[i];
    if (energy >= threshold && ++loud >= needed) return true;
  }
  return false;
}
