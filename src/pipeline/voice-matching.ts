// Known speakers: which of a recording's voices is which named person, from voice profiles (the
// loud-frame cepstral statistics of native/speakers/voice-profile.h). The addon computes the
// profiles; what counts as a match is decided here.
//
// The distance is the squared Mahalanobis distance between two profiles' means under their average
// covariance: how far apart the two voices' spectral envelopes sit, in units of how much each moves
// within itself. It does not grow with the length of the audio (a likelihood ratio would, and its
// threshold would then mean something else for a 3 s clip than for an hour), and an unlike channel
// (another microphone, another room) adds to it: a mismatch misses a name, it does not lend one.
// c1 and c2 are left out of it (COMPARED_FROM). They hold the log spectrum's smoothest shape, its tilt,
// which is what a microphone's response, the distance to it and vocal effort change most and the
// speaker least: a first-order filter such as a brighter microphone (1 - a z^-1) moves cepstrum c_n by
// about a^n / n, so c1 and c2 take most of it. Measured on the same enrolments (bench diarization,
// threshold 1.0, all 19 against c3-c19): same microphone named correctly 0.803 -> 0.837 at the same
// false attribution 0.0016; clips through a brighter microphone 0 -> 0.775 (false attribution 0.0016);
// telephone-band clips 0 -> 0.261 (0). Leaving out c1-c4 names more (0.911) at more false attribution
// (0.0024), which then climbs steeply just above the threshold (at 1.2: 0.0236, against 0.0068 with
// c1-c2 left out): two keep the margin.
// Where both profiles carry pitch, the squared difference of their mean log-F0 in units of their
// average log-F0 variance is added: the same distance over one more dimension, the source beside the
// vocal tract, taken as independent of it (the source-filter model, as the diarizer's stopping rule
// takes it). Two voices with alike tracts and different registers share a cepstral profile; their
// pitch tells them apart, and a microphone moves it not at all.
//
// The threshold was chosen on generated voices only (`npm run bench -- diarization --sweep`: 19
// recordings, each with every voice enrolled, and again with its last voice left out while a stranger
// is enrolled in its place: an alike voice of another espeak-ng variant or accent, or the left-out
// voice's own variant at another pitch; 255 enrolments, 2,496 turns). With c3-c19 and pitch, turns
// named wrongly: 0 at 0.8, 0.16 % at 1.0, 0.68 % at 1.2 and 1.4, 3.2 % at 1.6; turns named correctly
// 0.72, 0.84, 0.92, 0.94, 0.97. The bar is 1 % false attribution (a patient must not be labelled as the
// doctor): 1.0 keeps a margin of six below it for what synthetic voices cannot show (real voices vary
// more from day to day and from one microphone to another), at the cost of names missed. A voice that
// is not named keeps its letter.
import { FEATURES_PER_FRAME, type VoiceProfile } from '../engine/speaker-diarizer.js';

/** A name a caller gave with the profile of that person's voice. */
export interface KnownSpeaker {
  name: string;
  profile: VoiceProfile;
}

/** Which voice a known speaker was found to be: `voice` null when none matched. */
export interface KnownSpeakerMatch {
  name: string;
  voice: number | null;
  /** The similarity of the match, or of the nearest voice when none matched; null when no voice had enough speech. */
  similarity: number | null;
}

/** Profiles farther apart than this are different people (see the header for why this value). */
export const MATCH_DISTANCE = 1.0;
/**
 * A voice heard for fewer loud frames than this (10 ms each; half a second of vowels, about 2 s of
 * speech) is never named: its mean is too uncertain to tell alike voices apart.
 */
export const MIN_PROFILE_FRAMES = 50;
/** The first cepstral coefficient compared (0-based: c3), see the header. */
const COMPARED_FROM = 2;
/** Ridge on the average covariance, relative to its mean diagonal (as the diarizer's Gaussians have). */
const COVARIANCE_RIDGE = 1e-3;
/** Voiced loud frames a profile needs for its pitch to count (a fifth of a second, as the diarizer's pitch test). */
export const MIN_PITCH_FRAMES = 20;
/** Log-F0 variance floor: (1 %)^2, the pitch tracker's resolution (one sample of period at 160 Hz). */
const PITCH_VARIANCE_FLOOR = 1e-4;

/** The squared Mahalanobis distance between the profiles' means under their average covariance (see the header). */
export function voiceDistance(a: VoiceProfile, b: VoiceProfile): number {
  const n = FEATURES_PER_FRAME - COMPARED_FROM;
  // The compared coefficients' block of the average covariance, and of the difference of the means.
  const at = (k: number) => k + COMPARED_FROM;
  const average = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) average[i * n + j] = (a.covariance[at(i) * FEATURES_PER_FRAME + at(j)] + b.covariance[at(i) * FEATURES_PER_FRAME + at(j)]) / 2;
  let trace = 0;
  for (let i = 0; i < n; i++) trace += average[i * n + i];
  for (let i = 0; i < n; i++) average[i * n + i] += (COVARIANCE_RIDGE * trace) / n;
  const difference = Float64Array.from({ length: n }, (_, i) => a.mean[at(i)] - b.mean[at(i)]);
  const solved = solveCholesky(average, difference, n);
  return solved === null ? Infinity : difference.reduce((sum, d, i) => sum + d * solved[i], 0) + pitchDistance(a, b);
}

/** The squared difference of mean log-F0 over the average log-F0 variance; 0 unless both profiles have enough pitch. */
function pitchDistance(a: VoiceProfile, b: VoiceProfile): number {
  if (!a.pitch || !b.pitch || a.pitch.frames < MIN_PITCH_FRAMES || b.pitch.frames < MIN_PITCH_FRAMES) return 0;
  const variance = Math.max((a.pitch.variance + b.pitch.variance) / 2, PITCH_VARIANCE_FLOOR);
  return (a.pitch.mean - b.pitch.mean) ** 2 / variance;
}

/** 1 for identical profiles, 0.5 at the threshold, 0 at twice the threshold or farther (rounded to 0.001). */
export function similarityOf(distance: number): number {
  return Math.round(Math.max(0, 1 - distance / (2 * MATCH_DISTANCE)) * 1000) / 1000;
}

/**
 * Names voices: the closest pair of (voice, known speaker) is matched first, then the closest of the
 * rest, and so on while they are within the threshold. One name per voice and each name at most once;
 * a voice that matches nobody keeps its letter, and no name is given for want of a better one.
 */
export function matchKnownSpeakers(
  voices: readonly VoiceProfile[],
  known: readonly KnownSpeaker[],
  /** MATCH_DISTANCE; another only for the benchmark's sweep that chose it. */
  maxDistance = MATCH_DISTANCE,
): KnownSpeakerMatch[] {
  const pairs: Array<{ voice: number; speaker: number; distance: number }> = [];
  voices.forEach((profile, voice) => {
    if (profile.frames < MIN_PROFILE_FRAMES) return;
    known.forEach((k, speaker) => pairs.push({ voice, speaker, distance: voiceDistance(profile, k.profile) }));
  });
  pairs.sort((x, y) => x.distance - y.distance || x.voice - y.voice || x.speaker - y.speaker);
  const matches: KnownSpeakerMatch[] = known.map((k) => ({ name: k.name, voice: null, similarity: null }));
  const named = new Set<number>();
  for (const { voice, speaker, distance } of pairs) {
    const match = matches[speaker];
    // The nearest voice's similarity is kept for a name that ends up unmatched.
    match.similarity ??= similarityOf(distance);
    if (match.voice !== null || named.has(voice) || distance > maxDistance) continue;
    // The first pair of a free name and a free voice within the threshold: their similarity, not the nearest taken voice's.
    match.voice = voice;
    match.similarity = similarityOf(distance);
    named.add(voice);
  }
  return matches;
}

/** Solves A x = b for a symmetric positive definite A (n x n, row-major); null when A is not. */
function solveCholesky(a: Float64Array, b: Float64Array, n: number): Float64Array | null {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i * n + j];
      for (let k = 0; k < j; k++) sum -= l[i * n + k] * l[j * n + k];
      if (i === j) {
        if (!(sum > 0)) return null;
        l[i * n + i] = Math.sqrt(sum);
      } else {
        l[i * n + j] = sum / l[j * n + j];
      }
    }
  }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = b[i];
    for (let k = 0; k < i; k++) sum -= l[i * n + k] * y[k];
    y[i] = sum / l[i * n + i];
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let sum = y[i];
    for (let k = i + 1; k < n; k++) sum -= l[k * n + i] * x[k];
    x[i] = sum / l[i * n + i];
  }
  return x;
}
