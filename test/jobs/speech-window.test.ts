// The window an omitted language is detected from (src/pipeline/speech-window.ts) and how the engine's
// answer is restricted to the supported families (src/pipeline/dominant-language.ts), on synthetic PCM
// with known levels. The end-to-end behaviour is in jobs-language-detection.test.ts.
import t from 'tap';
import { mostProbableFamily } from '../../src/pipeline/dominant-language.js';
import { firstSpeechWindow } from '../../src/pipeline/speech-window.js';

const RATE = 16_000;

/** `seconds` of silence with sine bursts (RMS in dBFS) written over it. */
function recording(seconds: number, bursts: Array<{ at: number; seconds: number; rmsDb: number }> = [], noiseRmsDb: number | null = null): Float32Array {
  const pcm = new Float32Array(Math.round(seconds * RATE));
  if (noiseRmsDb !== null) {
    // Uniform noise on [-a, a] has RMS a / sqrt(3).
    const a = 10 ** (noiseRmsDb / 20) * Math.sqrt(3);
    let state = 1;
    for (let i = 0; i < pcm.length; i++) {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      pcm[i] = (state / 2 ** 30 - 1) * a;
    }
  }
  for (const burst of bursts) {
    // A sine of amplitude A has RMS A / sqrt(2).
    const amplitude = 10 ** (burst.rmsDb / 20) * Math.SQRT2;
    const start = Math.round(burst.at * RATE);
    for (let i = 0; i < Math.round(burst.seconds * RATE); i++) pcm[start + i] = amplitude * Math.sin((2 * Math.PI * 220 * i) / RATE);
  }
  return pcm;
}

t.test('digital silence and quiet room noise bear no speech', async (t) => {
  t.equal(firstSpeechWindow(recording(130), RATE), null);
  t.equal(firstSpeechWindow(recording(130, [], -55), RATE), null, '-55 dBFS noise');
  t.equal(firstSpeechWindow(new Float32Array(0), RATE), null, 'no samples');
});

t.test('the first window with half a second of audio above -40 dBFS is chosen', async (t) => {
  const third = firstSpeechWindow(recording(100, [{ at: 70, seconds: 1, rmsDb: -25 }], -55), RATE);
  t.equal(third?.index, 2);
  t.equal(third?.startSeconds, 60);
  t.equal(third?.pcm.length, 30 * RATE, 'the whole 30-second window');
  const first = firstSpeechWindow(recording(100, [{ at: 5, seconds: 1, rmsDb: -25 }, { at: 40, seconds: 1, rmsDb: -25 }]), RATE);
  t.equal(first?.index, 0, 'the earliest one wins');
});

t.test('the level and length thresholds', async (t) => {
  t.equal(firstSpeechWindow(recording(30, [{ at: 3, seconds: 2, rmsDb: -38 }]), RATE)?.index, 0, '-38 dBFS is loud enough');
  t.equal(firstSpeechWindow(recording(30, [{ at: 3, seconds: 2, rmsDb: -42 }]), RATE), null, '-42 dBFS is not');
  t.equal(firstSpeechWindow(recording(30, [{ at: 3, seconds: 0.3, rmsDb: -10 }]), RATE), null, 'a 0.3 s click is not speech');
  const scattered = [0, 1, 2, 3, 4, 5].map((k) => ({ at: 2 + 4 * k, seconds: 0.1, rmsDb: -20 }));
  t.equal(firstSpeechWindow(recording(30, scattered), RATE)?.index, 0, 'loud frames count wherever they are in the window');
});

t.test('only the first four windows are looked at; a short last window is looked at too', async (t) => {
  t.equal(firstSpeechWindow(recording(150, [{ at: 121, seconds: 5, rmsDb: -20 }]), RATE), null, 'speech from 121 s is past the fourth window');
  t.equal(firstSpeechWindow(recording(150, [{ at: 118, seconds: 1, rmsDb: -20 }]), RATE)?.index, 3, 'speech at 118 s is in the fourth');
  const short = firstSpeechWindow(recording(40, [{ at: 35, seconds: 1, rmsDb: -20 }]), RATE);
  t.equal(short?.index, 1);
  t.equal(short?.pcm.length, 10 * RATE, 'the 10 s that exist');
});

t.test('the answer is the most probable supported family, whatever the most probable language', async (t) => {
  t.equal(mostProbableFamily({ sd: 0.5, ja: 0.3, de: 0.1, en: 0.05, hi: 0.02 }), 'de');
  t.equal(mostProbableFamily({ en: 0.2, es: 0.2 }), 'en', 'a tie goes to the earlier family');
  t.equal(mostProbableFamily({ hi: 0.4, ar: 0.41 }), 'ar');
  t.equal(mostProbableFamily({}), 'en', 'no probabilities at all');
});
