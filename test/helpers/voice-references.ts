// Reference clips for known speakers, each a recording of its own: a voice reading sentences 6 and 10
// of MEDICAL_SENTENCES with a quarter-second pause, cut to at most `seconds`. And the alike voices
// the benchmark enrols in place of a voice left out, to ask whether a stranger's name lands on a
// voice that is not theirs. And other "microphones" a clip can be heard through (throughChannel).
import { writeFile } from 'node:fs/promises';

import { cachedFile, FIXTURE_SAMPLE_RATE, type SpeakerVoice, spokenSentence, wavFileBytes } from './audio-fixtures.js';

const REFERENCE_SENTENCES = [5, 9];

/** A 16 kHz mono WAV of `voice` reading the reference sentences, at most `seconds` long (cached). */
export async function referenceClip(voice: SpeakerVoice, seconds = 9): Promise<string> {
  const name = `reference-${voice.voice}-p${voice.pitch ?? 50}-s${voice.speed ?? 160}-${seconds}s.wav`;
  return cachedFile(name, async (tmp) => {
    const pause = new Int16Array(Math.round(0.25 * FIXTURE_SAMPLE_RATE));
    const parts = (await Promise.all(REFERENCE_SENTENCES.map((s) => spokenSentence(s, voice)))).flatMap((p) => [p, pause]);
    const joined = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.length;
    }
    await writeFile(tmp, wavFileBytes(joined.subarray(0, Math.min(joined.length, Math.round(seconds * FIXTURE_SAMPLE_RATE)))));
  });
}

/**
 * Voices of another espeak-ng variant or accent than the conversations' (some of one sex and pitch
 * range with them): strangers whose names must never land on a conversation's voices.
 */
export const ALIKE_VOICES: readonly SpeakerVoice[] = [
  { voice: 'en-us' },
  { voice: 'en-gb' },
  { voice: 'en-gb-x-rp', pitch: 20, speed: 130 },
  { voice: 'en-gb-scotland' },
  { voice: 'en-029', pitch: 60 },
  { voice: 'en-us+m7', pitch: 30 },
  { voice: 'en-us+f2', pitch: 60 },
  { voice: 'en-gb+f4', pitch: 80 },
  { voice: 'en-us+m1', pitch: 40 },
  { voice: 'en-gb+m3', pitch: 45, speed: 140 },
  { voice: 'en-us+f1', pitch: 70 },
  { voice: 'en-gb+m7', pitch: 30, speed: 150 },
];

/**
 * Another microphone for the reference clips, to measure what the channel does (SPEAKERS.md: a
 * channel unlike the recording's should miss names, not lend them): `tilt` brightens the spectrum
 * (y = x - 0.6 x[-1], about +8 dB at 4 kHz against 300 Hz), `phone` keeps 300-3,400 Hz (one-pole
 * high-pass and two one-pole low-passes).
 */
export type ReferenceChannel = 'same' | 'tilt' | 'phone';

export function throughChannel(pcm: Float32Array, channel: ReferenceChannel): Float32Array {
  if (channel === 'same') return pcm;
  const out = new Float32Array(pcm.length);
  if (channel === 'tilt') {
    for (let i = 0; i < pcm.length; i++) out[i] = pcm[i] - 0.6 * (i > 0 ? pcm[i - 1] : 0);
    return out;
  }
  const pole = (hz: number) => Math.exp((-2 * Math.PI * hz) / 16_000);
  const high = pole(300);
  const low = pole(3400);
  let hp = 0;
  let previous = 0;
  let lp1 = 0;
  let lp2 = 0;
  for (let i = 0; i < pcm.length; i++) {
    hp = high * (hp + pcm[i] - previous);
    previous = pcm[i];
    lp1 = (1 - low) * hp + low * lp1;
    lp2 = (1 - low) * lp1 + low * lp2;
    out[i] = lp2;
  }
  return out;
}
