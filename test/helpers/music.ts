import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
/**
 * Music without a voice, synthesised: a melody of harmonic notes (a fundamental and four overtones,
 * each note struck and decaying) over a sustained chord. Pitched, harmonic and rhythmic like a voice,
 * so it asks more of a speech detector than noise or a steady tone does.
 */
const MELODY_HZ = [262, 294, 330, 349, 392, 440, 494, 523];
const CHORD_HZ = [131, 165, 196];
const NOTE_SECONDS = 0.3;

/** `seconds` of music peaking near -6 dBFS; scale it for other levels. */
export function music(seconds: number): Float32Array {
  const pcm = new Float32Array(Math.round(seconds * SAMPLE_RATE));
  for (let i = 0; i < pcm.length; i++) {
    const time = i / SAMPLE_RATE;
    const intoNote = time % NOTE_SECONDS;
    const note = MELODY_HZ[Math.floor(time / NOTE_SECONDS) % MELODY_HZ.length];
    const envelope = Math.min(1, intoNote / 0.02) * Math.exp(-intoNote * 4);
    let v = 0;
    for (let h = 1; h <= 5; h++) v += (0.25 / h) * Math.sin(2 * Math.PI * note * h * time) * envelope;
    for (const f of CHORD_HZ) v += 0.08 * Math.sin(2 * Math.PI * f * time);
    pcm[i] = v * 0.5;
  }
  return pcm;
}
