/**
 * Sounds of a room that are not speech, synthesised over its pink noise floor (-70 dBFS): what a
 * levelling VAD raises in long pauses. Clicks (a keyboard, a pen: 10 ms decaying noise every 0.12 to
 * 0.37 s) and noise bursts under a half-sine envelope (breaths, coughs, rustling paper, by their length
 * and spacing). Seeded.
 */
import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
import { mulberry32 } from './audio-fixtures.js';
import { pinkNoise } from './far-field.js';

const FLOOR_DB = -70;

/** `seconds` of clicks peaking near `db` dBFS. */
export function clicks(seconds: number, db: number, seed = 7): Float32Array {
  const pcm = floor(seconds, seed);
  const random = mulberry32(seed);
  const decay = 0.002 * SAMPLE_RATE;
  for (let at = 0; at < pcm.length;) {
    at += Math.floor(SAMPLE_RATE * (0.12 + 0.25 * random()));
    for (let i = 0; i < 5 * decay && at + i < pcm.length; i++) pcm[at + i] += (random() * 2 - 1) * 10 ** (db / 20) * Math.exp(-i / decay);
  }
  return pcm;
}

/** `seconds` of noise bursts of `burstSeconds` every `everySeconds`, at `db` dBFS RMS inside each burst's peak. */
export function noiseBursts(seconds: number, db: number, burstSeconds: number, everySeconds: number, seed = 9): Float32Array {
  const pcm = floor(seconds, seed);
  const burst = pinkNoise(pcm.length, seed + 1);
  const length = Math.floor(burstSeconds * SAMPLE_RATE);
  for (let start = 0; start < pcm.length; start += Math.floor(everySeconds * SAMPLE_RATE)) {
    for (let i = 0; i < length && start + i < pcm.length; i++) pcm[start + i] += burst[start + i] * Math.sin((Math.PI * i) / length) * 10 ** (db / 20);
  }
  return pcm;
}

function floor(seconds: number, seed: number): Float32Array {
  return pinkNoise(Math.round(seconds * SAMPLE_RATE), seed + 100).map((x) => x * 10 ** (FLOOR_DB / 20));
}
