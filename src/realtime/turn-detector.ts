// Endpointing: where a turn stands, from the VAD's speech regions over the audio buffered since the
// last turn ended. Silence after speech first makes a turn-end candidate (presentation only), then,
// longer, ends the turn; speech again before that continues it. A turn that runs on past
// `maxTurnSeconds` without a pause long enough is ended at its latest pause (or where it stands), so
// the buffer, the decode and the wait for text all stay bounded.
import type { SpeechRegion } from '../pipeline/speech-regions.js';

export interface Endpointing {
  /** Trailing silence (s) that makes a turn-end candidate. */
  candidateSilence: number;
  /** Trailing silence (s) that ends the turn. */
  finalSilence: number;
  /** Longest turn (s) before it is ended at its latest pause. */
  maxTurnSeconds: number;
}

export const DEFAULT_ENDPOINTING: Endpointing = { candidateSilence: 0.3, finalSilence: 0.6, maxTurnSeconds: 20 };

export type TurnState =
  | { kind: 'silence' }
  | { kind: 'speaking'; speechStart: number; speechEnd: number }
  | { kind: 'pausing'; speechStart: number; speechEnd: number }
  /** `cut`: where the next turn's audio begins (the end of the speech, or the forced cut). */
  | { kind: 'ended'; speechStart: number; speechEnd: number; cut: number };

export function turnState(regions: readonly SpeechRegion[], bufferSeconds: number, e: Endpointing = DEFAULT_ENDPOINTING): TurnState {
  if (regions.length === 0) return { kind: 'silence' };
  const speechStart = regions[0].start;
  const last = regions[regions.length - 1];
  const trailing = bufferSeconds - last.end;
  if (trailing >= e.finalSilence) return { kind: 'ended', speechStart, speechEnd: last.end, cut: last.end };
  if (bufferSeconds >= e.maxTurnSeconds) {
    // No pause long enough: end at the latest pause between regions, else where the audio stands.
    if (regions.length >= 2) return { kind: 'ended', speechStart, speechEnd: regions[regions.length - 2].end, cut: last.start };
    return { kind: 'ended', speechStart, speechEnd: Math.min(last.end, bufferSeconds), cut: bufferSeconds };
  }
  if (trailing >= e.candidateSilence) return { kind: 'pausing', speechStart, speechEnd: last.end };
  return { kind: 'speaking', speechStart, speechEnd: last.end };
}
