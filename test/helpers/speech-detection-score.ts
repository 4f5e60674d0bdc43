// Speech detection scored against a reference, in time: recall (the share of the reference's speech
// that the detection covers) and precision (the share of detected speech that the reference calls
// speech). Speech is the union of the turns on each side, so overlapped talkers count once: a VAD
// says whether anyone speaks, not who. As for DER (diarization-error-rate.ts), time within `collar`
// seconds of a reference turn's start or end is not scored: no annotator places a boundary closer.
export interface Span {
  start: number;
  end: number;
}

export interface SpeechDetectionScore {
  recall: number;
  precision: number;
  /** Seconds scored: reference speech, detected speech, and both. */
  referenceSeconds: number;
  detectedSeconds: number;
  hitSeconds: number;
}

export function speechDetectionScore(reference: readonly Span[], detected: readonly Span[], collar = 0.25): SpeechDetectionScore {
  const excluded = reference.flatMap((s) => [
    [s.start - collar, s.start + collar],
    [s.end - collar, s.end + collar],
  ]) as Array<[number, number]>;
  const cuts = [...new Set([...reference, ...detected].flatMap((s) => [s.start, s.end]).concat(excluded.flat()))].sort((a, b) => a - b);
  const inside = (spans: readonly Span[], t: number) => spans.some((s) => s.start <= t && t < s.end);
  let referenceSeconds = 0;
  let detectedSeconds = 0;
  let hitSeconds = 0;
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [from, to] = [cuts[i], cuts[i + 1]];
    const middle = (from + to) / 2;
    if (to <= from || (collar > 0 && excluded.some(([a, b]) => middle > a && middle < b))) continue;
    const isReference = inside(reference, middle);
    const isDetected = inside(detected, middle);
    if (isReference) referenceSeconds += to - from;
    if (isDetected) detectedSeconds += to - from;
    if (isReference && isDetected) hitSeconds += to - from;
  }
  return {
    recall: referenceSeconds > 0 ? hitSeconds / referenceSeconds : 1,
    precision: detectedSeconds > 0 ? hitSeconds / detectedSeconds : 1,
    referenceSeconds,
    detectedSeconds,
    hitSeconds,
  };
}
