// The per-utterance language rules (src/pipeline/language-runs.ts, language-stage.ts) on recorded
// detection results: probability maps of the shape the engine's detectLanguage returns, as a real
// multilingual model gives them on alternating English, Spanish and German speech. (Generated
// random-weight models detect noise, so the rules are tested here and the end-to-end shape on the
// real engine in test/pipeline/pipeline-vad.test.ts.)
import t from 'tap';

import { parseLanguageTag } from '../../src/domain/language-families.js';
import { chooseLanguage, collapseRuns, fillUndetected, UTTERANCE_PAUSE_SECONDS, utterancesOf } from '../../src/pipeline/language-runs.js';
import { type DetectLanguage, planLanguage, speechBearingWindows } from '../../src/pipeline/language-stage.js';
import { UnsupportedDetectedLanguage } from '../../src/pipeline/pipeline-errors.js';

const RATE = 16_000;
const EN = { en: 0.91, es: 0.03, de: 0.02, it: 0.01 };
const ES = { es: 0.88, pt: 0.06, en: 0.03, it: 0.02 };
const DE = { de: 0.86, nl: 0.08, en: 0.04 };
const IT = { it: 0.71, es: 0.15, pt: 0.06, en: 0.03 };

/**
 * A detector that answers from a recording of results, by where the speech it is given starts in the
 * recording (every sample of `pcm` holds its own time) and how long it is.
 */
function recordedDetector(byStart: Array<[startSeconds: number, probabilities: Record<string, number>]>) {
  const calls: Array<[start: number, seconds: number]> = [];
  const detect: DetectLanguage = async (packed) => {
    const start = Math.round(packed[0] * 10) / 10;
    calls.push([start, Math.round((packed.length / RATE) * 10) / 10]);
    const found = byStart.find(([s]) => Math.abs(s - start) < 0.05);
    if (!found) throw new Error(`no recorded detection for speech starting at ${start} s`);
    return found[1];
  };
  return { detect, calls };
}

/** 120 s of PCM whose every sample holds its own time in seconds. */
const pcm = Float32Array.from({ length: 120 * RATE }, (_, i) => i / RATE);

t.test('choosing among candidates', async (t) => {
  t.equal(chooseLanguage(ES, ['en', 'es', 'de'], false), 'es');
  t.equal(chooseLanguage(IT, ['en', 'es', 'pt', 'fr', 'de', 'nl', 'ar', 'hi'], false), null, 'Italian is not supported: refused');
  t.equal(chooseLanguage(IT, ['es', 'pt'], true), 'es', 'with hints the likeliest hinted language wins');
});

t.test('short utterances inherit, same-language neighbours collapse', async (t) => {
  t.same(fillUndetected([null, 'en', null, 'es', null]), ['en', 'en', 'en', 'es', 'es']);
  const utterances = utterancesOf([0, 1, 2, 3, 4].map((i) => ({ start: i * 10, end: i * 10 + 5 })));
  t.equal(utterances.length, 5, 'pauses of 5 s close utterances');
  const runs = collapseRuns(utterances, ['en', 'en', 'es', 'es', 'en']);
  t.same(
    runs.map((r) => [r.language, r.regions.length]),
    [
      ['en', 2],
      ['es', 2],
      ['en', 1],
    ],
  );
});

t.test('pauses shorter than an utterance pause join regions into one utterance', async (t) => {
  const short = UTTERANCE_PAUSE_SECONDS / 2;
  const utterances = utterancesOf([
    { start: 0, end: 2 },
    { start: 2 + short, end: 3 },
    { start: 10, end: 11 },
  ]);
  t.same(
    utterances.map((u) => [u.regions.length, u.speechSeconds]),
    [
      [2, 3 - short],
      [1, 1],
    ],
  );
});

t.test('an utterance is judged on its opening seconds of speech', async (t) => {
  const { detect, calls } = recordedDetector([[10, DE]]);
  const plan = await planLanguage({ choice: { mode: 'auto', hints: null }, pcm, sampleRate: RATE, regions: [{ start: 10, end: 40 }], detect });
  t.same(calls, [[10, 4]], 'a 30 s utterance is detected on its first 4 s');
  t.equal(plan.language, 'de');
});

t.test('language=auto: every utterance detected, runs collapsed, mixed reported', async (t) => {
  // Utterances of 3.0, 4.0, 0.5 (not detected), 5.0 and 6.0 s: en, en, -, es, de.
  const regions = [
    { start: 1, end: 4 },
    { start: 6, end: 10 },
    { start: 12, end: 12.5 },
    { start: 20, end: 25 },
    { start: 40, end: 46 },
  ];
  const { detect, calls } = recordedDetector([
    [1, EN],
    [6, EN],
    [20, ES],
    [40, DE],
  ]);
  const plan = await planLanguage({ choice: { mode: 'auto', hints: null }, pcm, sampleRate: RATE, regions, detect });
  t.same(
    calls,
    [
      [1, 3],
      [6, 4],
      [20, 4],
      [40, 4],
    ],
    'the 0.5 s utterance is not detected on its own; longer ones on their first 4 s',
  );
  t.same(
    plan.runs.map((r) => [r.language, r.regions.length]),
    [
      ['en', 3],
      ['es', 1],
      ['de', 1],
    ],
  );
  t.equal(plan.language, 'mixed');
  t.equal(plan.source, 'detected');
  t.same(plan.detection, {
    mode: 'per_utterance',
    candidates: ['en', 'es', 'pt', 'fr', 'de', 'nl', 'ar', 'hi'],
    languages: ['en', 'es', 'de'],
    utterances: 5,
    fallbacks: 0,
  });
});

t.test('language=auto with hints restricts the candidates and reports them', async (t) => {
  const regions = [{ start: 0, end: 3 }];
  const { detect } = recordedDetector([[0, IT]]);
  const hints = [parseLanguageTag('es-MX')!, parseLanguageTag('pt')!];
  const plan = await planLanguage({ choice: { mode: 'auto', hints }, pcm, sampleRate: RATE, regions, detect });
  t.equal(plan.language, 'es');
  t.same(plan.detection?.candidates, ['es', 'pt']);
  t.same(plan.detection?.requested_candidates, ['es-MX', 'pt']);
});

t.test('language=auto refuses a likeliest language outside the supported families', async (t) => {
  const { detect } = recordedDetector([[0, IT]]);
  await t.rejects(
    planLanguage({ choice: { mode: 'auto', hints: null }, pcm, sampleRate: RATE, regions: [{ start: 0, end: 3 }], detect }),
    UnsupportedDetectedLanguage,
  );
});

t.test('only short utterances: detected together as one piece of speech', async (t) => {
  const regions = [
    { start: 0, end: 0.5 },
    { start: 2, end: 2.4 },
  ];
  const { detect, calls } = recordedDetector([[0, DE]]);
  const plan = await planLanguage({ choice: { mode: 'auto', hints: null }, pcm, sampleRate: RATE, regions, detect });
  t.same(calls, [[0, 1]], '0.5 + 0.1 separator + 0.4 s');
  t.equal(plan.language, 'de');
  t.equal(plan.detection?.utterances, 2);
});

t.test('omitted language: the dominant language from the first speech-bearing window, checked by a second probe', async (t) => {
  // Nothing in the first 30 s; 4 s of speech in window 2; 6 s in window 3.
  const regions = [
    { start: 31, end: 35 },
    { start: 70, end: 76 },
    { start: 100, end: 103 },
  ];
  t.same(
    speechBearingWindows(regions).map((w) => w.length),
    [1, 1, 1],
  );
  const agree = recordedDetector([
    [31, ES],
    [70, ES],
  ]);
  const plan = await planLanguage({ choice: { mode: 'dominant' }, pcm, sampleRate: RATE, regions, detect: agree.detect });
  t.same(
    agree.calls,
    [
      [31, 4],
      [70, 6],
    ],
    'two probes: windows 2 and 3',
  );
  t.equal(plan.language, 'es');
  t.same(plan.runs.length, 1);
  t.equal(plan.runs[0].regions.length, 3, 'the whole recording in one language');
  t.equal(plan.source, 'detected');

  // Probes that disagree escalate to the per-utterance path.
  const disagree = recordedDetector([
    [31, EN],
    [70, DE],
    [100, DE],
  ]);
  const mixed = await planLanguage({ choice: { mode: 'dominant' }, pcm, sampleRate: RATE, regions, detect: disagree.detect });
  t.same(
    disagree.calls.map(([start]) => start),
    [31, 70, 31, 70, 100],
    'two probes, then every utterance',
  );
  t.equal(mixed.language, 'mixed');
  t.same(mixed.detection?.languages, ['en', 'de']);
});

t.test('omitted language: an unsupported likeliest language is not refused, the likeliest supported one is used', async (t) => {
  const { detect } = recordedDetector([[0, IT]]);
  const plan = await planLanguage({ choice: { mode: 'dominant' }, pcm, sampleRate: RATE, regions: [{ start: 0, end: 3 }], detect });
  t.equal(plan.language, 'es');
});

t.test('a given language is used as given, nothing detected', async (t) => {
  const { detect, calls } = recordedDetector([]);
  const plan = await planLanguage({
    choice: { mode: 'explicit', language: parseLanguageTag('en-GB')!, source: 'requested' },
    pcm,
    sampleRate: RATE,
    regions: [{ start: 0, end: 3 }],
    detect,
  });
  t.same(calls, []);
  t.equal(plan.language, 'en-GB');
  t.equal(plan.source, 'requested');
  t.equal(plan.detection, null);
});
