// Splitting one VAD call over the VAD pool's workers. Silero is a recurrent model, so one call runs
// frame after frame on one thread; a long recording waits for all of it (about 2 ms per second of
// audio). Cut at its quietest frames into one piece per worker, the pieces run at once and their
// results join: the LSTM starts each piece from its initial state, as at the start of any recording,
// and a cut in the quietest frame near the middle lies in a pause whenever the audio has one there.
// A segment that still meets a cut is joined across it.

/** Shortest piece worth a worker of its own: below it the call's fixed costs dominate. */
export const MIN_PIECE_SECONDS = 15;
/** Where a cut may go: this share of a piece's length either side of the even cut. */
const CUT_SEARCH_SHARE = 0.1;

export interface PieceDetection {
  probabilities: Float32Array;
  segments: Array<{ start: number; end: number }>;
}

/**
 * Sample offsets where the pieces start (the first is 0), each on a frame boundary so the pieces'
 * frames line up with one call's frames. One piece (no cut) when the audio is too short to share.
 */
export function pieceStarts(pcm: Float32Array, sampleRate: number, frameSamples: number, workers: number): number[] {
  const pieces = Math.max(1, Math.min(workers, Math.floor(pcm.length / (MIN_PIECE_SECONDS * sampleRate))));
  const starts = [0];
  const length = pcm.length / pieces;
  for (let k = 1; k < pieces; k++) {
    const even = k * length;
    const from = Math.floor((even - length * CUT_SEARCH_SHARE) / frameSamples);
    const to = Math.floor((even + length * CUT_SEARCH_SHARE) / frameSamples);
    let quietest = from;
    let least = Number.POSITIVE_INFINITY;
    for (let frame = from; frame <= to; frame++) {
      let energy = 0;
      for (let i = frame * frameSamples; i < (frame + 1) * frameSamples; i++) energy += pcm[i] * pcm[i];
      if (energy < least) {
        least = energy;
        quietest = frame;
      }
    }
    starts.push(quietest * frameSamples);
  }
  return starts;
}

/** One detection from the pieces' (in order, starting at `startsSeconds`). */
export function joinPieces(pieces: PieceDetection[], startsSeconds: number[]): PieceDetection {
  const probabilities = new Float32Array(pieces.reduce((n, p) => n + p.probabilities.length, 0));
  let at = 0;
  const segments: Array<{ start: number; end: number }> = [];
  pieces.forEach((piece, k) => {
    probabilities.set(piece.probabilities, at);
    at += piece.probabilities.length;
    for (const segment of piece.segments) {
      const shifted = { start: segment.start + startsSeconds[k], end: segment.end + startsSeconds[k] };
      const last = segments[segments.length - 1];
      // Speech that ran across the cut ends one piece and starts the next: one segment again.
      if (last && k > 0 && shifted.start <= startsSeconds[k] + 1e-6 && last.end >= startsSeconds[k] - 1e-6) last.end = Math.max(last.end, shifted.end);
      else segments.push(shifted);
    }
  });
  return { probabilities, segments };
}
