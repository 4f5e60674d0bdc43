// Speech regions (what the VAD found) and packed audio: the regions of one language run cut out of
// the recording and laid end to end, so the recogniser decodes speech only, and a map that carries
// every time the recogniser reports on the packed audio back to the recording's own timeline.
//
// Why a separator between regions: whisper segments and times words by the pauses it hears. Laid
// back to back with no gap, the end of one utterance and the start of the next read as one phrase;
// a short stretch of silence keeps them apart at a cost of SEPARATOR_SECONDS per region (whisper.cpp's
// own VAD mode inserts 0.1 s for the same reason).

/** A stretch of speech, in seconds from the start of the audio it was found in. */
export interface SpeechRegion {
  start: number;
  end: number;
}

export const SEPARATOR_SECONDS = 0.1;

/** One region's place in the packed audio. */
interface PackedPiece {
  packedStart: number;
  originalStart: number;
  duration: number;
}

export interface PackedAudio {
  pcm: Float32Array;
  pieces: PackedPiece[];
  /** Seconds of speech packed (separators excluded). */
  speechSeconds: number;
}

/**
 * The most packed audio one decoding window holds (recognise-stage.ts): whisper's 30 s window, less a
 * margin so rounding region edges to samples never spills past it (whisper then decodes it in one
 * pass, and the vocabulary check, which decodes the first window only, sees all of it).
 */
export const WINDOW_SECONDS = 29.9;

/**
 * The regions in consecutive groups whose packed audio (separators included) fits in `seconds`:
 * as few windows as greedy packing needs, of lengths as even as the region edges allow. Windows of
 * one recording decode at once (recognise-stage.ts), so the request takes as long as its longest
 * window: 43 s of speech as 29.9 s + 13.1 s waits on the 29.9 s window; as two of about 21.5 s it
 * waits on one of those, for the same total work. A region longer than `seconds` alone is first cut
 * into equal pieces that fit (the VAD caps regions at 30 s, so only its padding or a run without the
 * VAD gets here).
 */
export function windowRegions(regions: readonly SpeechRegion[], seconds = WINDOW_SECONDS): SpeechRegion[][] {
  const pieces = regions.flatMap((region) => cutToFit(region, seconds));
  const count = packGreedily(pieces, seconds).length;
  if (count <= 1) return packGreedily(pieces, seconds);
  // The smallest window length that still packs into `count` windows: greedy packing is optimal for
  // "fits in n windows of length c", so bisect c between the even share and `seconds`.
  const packedSeconds = pieces.reduce((sum, p) => sum + (p.end - p.start), 0) + SEPARATOR_SECONDS * (pieces.length - 1);
  let low = packedSeconds / count;
  let high = seconds;
  for (let step = 0; step < 40 && high - low > 1e-3; step++) {
    const middle = (low + high) / 2;
    if (packGreedily(pieces, middle).length <= count) high = middle;
    else low = middle;
  }
  return packGreedily(pieces, high);
}

/** A region cut into the fewest equal pieces of at most `seconds`. */
function cutToFit(region: SpeechRegion, seconds: number): SpeechRegion[] {
  const length = region.end - region.start;
  if (length <= seconds) return [region];
  const count = Math.ceil(length / seconds);
  return Array.from({ length: count }, (_, i) => ({
    start: region.start + (length * i) / count,
    end: i === count - 1 ? region.end : region.start + (length * (i + 1)) / count,
  }));
}

/** Pieces in order, each window filled until the next piece would pass `seconds`. */
function packGreedily(pieces: readonly SpeechRegion[], seconds: number): SpeechRegion[][] {
  const windows: SpeechRegion[][] = [];
  let current: SpeechRegion[] = [];
  let length = 0;
  for (const piece of pieces) {
    const added = (current.length ? SEPARATOR_SECONDS : 0) + (piece.end - piece.start);
    if (current.length && length + added > seconds) {
      windows.push(current);
      current = [];
      length = 0;
    }
    length += (current.length ? SEPARATOR_SECONDS : 0) + (piece.end - piece.start);
    current.push(piece);
  }
  if (current.length) windows.push(current);
  return windows;
}

/** Total seconds covered by `regions`. */
export function speechSecondsOf(regions: readonly SpeechRegion[]): number {
  return regions.reduce((sum, r) => sum + (r.end - r.start), 0);
}

/** The regions' samples, in order, each followed by a separator of silence (none after the last). */
export function packRegions(pcm: Float32Array, sampleRate: number, regions: readonly SpeechRegion[]): PackedAudio {
  const separator = Math.round(SEPARATOR_SECONDS * sampleRate);
  const spans = regions
    .map((r) => ({ from: clampIndex(Math.round(r.start * sampleRate), pcm.length), to: clampIndex(Math.round(r.end * sampleRate), pcm.length) }))
    .filter((s) => s.to > s.from);
  const total = spans.reduce((sum, s) => sum + (s.to - s.from), 0) + separator * Math.max(0, spans.length - 1);
  const out = new Float32Array(total);
  const pieces: PackedPiece[] = [];
  let at = 0;
  for (const span of spans) {
    out.set(pcm.subarray(span.from, span.to), at);
    pieces.push({ packedStart: at / sampleRate, originalStart: span.from / sampleRate, duration: (span.to - span.from) / sampleRate });
    at += span.to - span.from + separator;
  }
  return { pcm: out, pieces, speechSeconds: spans.reduce((sum, s) => sum + (s.to - s.from), 0) / sampleRate };
}

function clampIndex(index: number, length: number): number {
  return Math.min(Math.max(index, 0), length);
}

/**
 * Maps a time on the packed audio to the recording. Inside a region the map is exact (a shift); a
 * time that falls in a separator has no original instant, so `edge` decides: a start goes to the next
 * region's start, an end to the previous region's end. Times past the last region clamp to its end.
 */
export function toOriginalTime(packed: PackedAudio, seconds: number, edge: 'start' | 'end'): number {
  const { pieces } = packed;
  if (pieces.length === 0) return 0;
  // Pieces are few (utterances of one run) and ordered: a linear scan from the end is clear and cheap.
  for (let i = pieces.length - 1; i >= 0; i--) {
    const piece = pieces[i];
    if (seconds < piece.packedStart) continue;
    const into = seconds - piece.packedStart;
    if (into <= piece.duration) return piece.originalStart + into;
    // In the separator after piece i (or past the end).
    const next = pieces[i + 1];
    return edge === 'start' && next ? next.originalStart : piece.originalStart + piece.duration;
  }
  return pieces[0].originalStart;
}

/** Seconds of `[start, end)` (on the recording) that lie inside `regions`. */
export function overlapWithSpeech(start: number, end: number, regions: readonly SpeechRegion[]): number {
  let overlap = 0;
  for (const r of regions) {
    const from = Math.max(start, r.start);
    const to = Math.min(end, r.end);
    if (to > from) overlap += to - from;
  }
  return overlap;
}

/** Regions shifted by `offset` seconds (a chunk's regions onto the recording's timeline, or back). */
export function shiftRegions(regions: readonly SpeechRegion[], offset: number): SpeechRegion[] {
  return regions.map((r) => ({ start: r.start + offset, end: r.end + offset }));
}
