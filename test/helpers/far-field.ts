/**
 * A far-field recording simulated from close speech: what a table or ceiling microphone a few metres
 * from a talker hears, in the three ways that matter to a VAD.
 *
 * - Reverberation: the speech convolved with a synthetic room impulse response, the direct sound
 *   followed by a diffuse tail of Gaussian noise decaying exponentially (Polack's statistical model of
 *   late reverberation): -60 dB after T60. Beyond the critical distance the tail carries more energy
 *   than the direct sound (a negative direct-to-reverberant ratio): syllables smear into the pauses.
 * - Level: the speech sits far below a close microphone's (the inverse-square law: 20-30 dB at a few
 *   metres against a headset's few centimetres).
 * - Noise: a room's steady noise (ventilation, computers), pink (-3 dB per octave), at a chosen
 *   signal-to-noise ratio against the speech's active level.
 *
 * Seeded: the same options give the same samples on every machine.
 */
import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
import { mulberry32 } from './audio-fixtures.js';
import { convolve } from './fft-convolution.js';
import type { SpeechSpan } from './speech-with-silences.js';

export interface FarFieldOptions {
  /** Reverberation time in seconds (default 0.6: a furnished meeting or consulting room). */
  t60Seconds?: number;
  /** Direct-to-reverberant energy ratio in dB (default -3: a talker beyond the critical distance). */
  directToReverberantDb?: number;
  /** The reverberant speech's active level in dBFS (default -45: about 25 dB below close speech). */
  speechLevelDb?: number;
  /** Speech active level over the noise's level, in dB (default 15). */
  snrDb?: number;
  seed?: number;
}

/** A room impulse response: the direct sound (1 at t = 0), then an exponentially decaying noise tail. */
export function roomImpulseResponse(t60Seconds: number, directToReverberantDb: number, seed: number): Float32Array {
  const length = Math.round(t60Seconds * SAMPLE_RATE);
  const response = new Float32Array(length);
  const gaussian = gaussianSource(seed);
  // The first reflections reach the microphone a few milliseconds after the direct sound.
  const predelay = Math.round(0.004 * SAMPLE_RATE);
  let tailEnergy = 0;
  for (let i = predelay; i < length; i++) {
    // Amplitude falls by 10^-3 (60 dB) over T60.
    response[i] = gaussian() * Math.exp((-3 * Math.LN10 * i) / (t60Seconds * SAMPLE_RATE));
    tailEnergy += response[i] * response[i];
  }
  const tailGain = Math.sqrt(10 ** (-directToReverberantDb / 10) / tailEnergy);
  for (let i = predelay; i < length; i++) response[i] *= tailGain;
  response[0] = 1;
  return response;
}

/** `samples` of pink noise at unit RMS (Paul Kellet's three-pole filter over white noise). */
export function pinkNoise(samples: number, seed: number): Float32Array {
  const gaussian = gaussianSource(seed);
  const out = new Float32Array(samples);
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  for (let i = 0; i < samples; i++) {
    const white = gaussian();
    b0 = 0.99765 * b0 + white * 0.099046;
    b1 = 0.963 * b1 + white * 0.2965164;
    b2 = 0.57 * b2 + white * 1.0526913;
    out[i] = b0 + b1 + b2 + white * 0.1848;
  }
  return scaleToRms(out, 1);
}

/** RMS over the samples inside `spans` (the speech's active level), in linear units. */
export function activeRms(pcm: Float32Array, spans: readonly SpeechSpan[]): number {
  let energy = 0;
  let count = 0;
  for (const span of spans) {
    for (let i = Math.floor(span.start * SAMPLE_RATE); i < Math.min(pcm.length, Math.ceil(span.end * SAMPLE_RATE)); i++) {
      energy += pcm[i] * pcm[i];
      count++;
    }
  }
  return Math.sqrt(energy / Math.max(1, count));
}

/** `dry` speech (whose speech lies in `spans`) as a far-field microphone would hear it. */
export function farField(dry: Float32Array, spans: readonly SpeechSpan[], options: FarFieldOptions = {}): Float32Array {
  const { t60Seconds = 0.6, directToReverberantDb = -3, speechLevelDb = -45, snrDb = 15, seed = 1 } = options;
  const wet = convolve(dry, roomImpulseResponse(t60Seconds, directToReverberantDb, seed));
  const speechRms = 10 ** (speechLevelDb / 20);
  const gain = speechRms / activeRms(wet, spans);
  const noise = pinkNoise(wet.length, seed + 1);
  const noiseRms = speechRms / 10 ** (snrDb / 20);
  return wet.map((x, i) => x * gain + noise[i] * noiseRms);
}

function scaleToRms(pcm: Float32Array, rms: number): Float32Array {
  let energy = 0;
  for (const x of pcm) energy += x * x;
  const gain = rms / Math.sqrt(energy / pcm.length);
  return pcm.map((x) => x * gain);
}

/** Standard normal samples (Box-Muller over a seeded uniform source). */
function gaussianSource(seed: number): () => number {
  const uniform = mulberry32(seed);
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}
