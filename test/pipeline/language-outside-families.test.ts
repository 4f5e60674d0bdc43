// When unhinted `language=auto` calls speech unsupported (src/pipeline/language-runs.ts decideLanguages,
// docs/API.md "Speech, silence and language"): over the recording, never on one utterance. Tested on
// recorded detections shaped like whisper's (a head of likely languages, the rest of the mass over all
// of its 100 languages): a confident Italian recording, English with outlier utterances, a
// code-switched English/Spanish file, speech outside the families inside long English speech, and a
// job's chunks judged with what came before them.
import t from 'tap';

import { LANGUAGE_FAMILIES, parseLanguageTag } from '../../src/domain/language-families.js';
import {
  decideLanguages,
  FAMILIES_DOMINATE_SHARE,
  judgeLanguage,
  type LanguageEvidence,
  NO_LANGUAGE_EVIDENCE,
  OUTSIDE_FAMILIES_SHARE,
  REFUSED_OUTSIDE_PASSAGE_SECONDS,
  REFUSED_OUTSIDE_SPEECH_SHARE,
} from '../../src/pipeline/language-runs.js';
import { type LanguagePlan, noSpeechLanguage, planLanguage } from '../../src/pipeline/language-stage.js';
import { UnsupportedDetectedLanguage } from '../../src/pipeline/pipeline-errors.js';
import { RECORDED_RATE, recordedDetector, timedPcm, whisperDetection } from '../helpers/recorded-detections.js';

// Detections as whisper gives them on 1 to 4 s of speech.
/** Clear English. */
const EN = whisperDetection({ en: 0.962, cy: 0.009, nn: 0.006, de: 0.005, nl: 0.004, es: 0.003 });
/** English, another speaker. */
const EN2 = whisperDetection({ en: 0.91, de: 0.02, nl: 0.015, cy: 0.012, fr: 0.01, es: 0.008 });
/** A 2 s accented English answer whose likeliest language is Welsh, English and its neighbours close behind. */
const EN_AS_CY = whisperDetection({ cy: 0.36, en: 0.33, de: 0.09, nl: 0.07, es: 0.04, nn: 0.03 });
/** Norwegian-accented English: Nynorsk on top, and the families short of half: uncertain. */
const EN_AS_NN = whisperDetection({ nn: 0.34, en: 0.31, no: 0.08, de: 0.07, nl: 0.06, sv: 0.04, da: 0.03 });
/** Afrikaans-sounding English: uncertain too. */
const EN_AS_AF = whisperDetection({ af: 0.33, en: 0.32, nl: 0.09, de: 0.05, cy: 0.04, nn: 0.03 });
/** Clear Spanish. */
const ES = whisperDetection({ es: 0.93, pt: 0.02, gl: 0.015, ca: 0.012, it: 0.008, en: 0.006 });
/** A short Spanish utterance whisper puts first in Galician, Spanish and Portuguese together above half. */
const ES_AS_GL = whisperDetection({ gl: 0.39, es: 0.36, pt: 0.14, ca: 0.05, it: 0.02, en: 0.01 });
/** Clear Italian: the families together hold a few per cent. */
const IT = whisperDetection({ it: 0.94, es: 0.021, pt: 0.008, la: 0.007, ca: 0.006, en: 0.005, fr: 0.004 });
const IT2 = whisperDetection({ it: 0.89, es: 0.04, pt: 0.015, ca: 0.011, la: 0.01, en: 0.007, fr: 0.006 });
/** Italian whisper is less sure of: Spanish and Portuguese hold a third. */
const IT_UNSURE = whisperDetection({ it: 0.52, es: 0.21, pt: 0.07, ca: 0.04, gl: 0.03, en: 0.03 });
/** A relative's sentence in Polish. */
const PL = whisperDetection({ pl: 0.93, cs: 0.02, uk: 0.015, ru: 0.01, sk: 0.01, en: 0.006 });

const ALL = { mode: 'auto', hints: null } as const;

/** A recording of utterances `[seconds, detection]` separated by 1.5 s pauses; PCM to match. */
function recording(utterances: Array<[seconds: number, detection: Record<string, number>]>) {
  const regions = [];
  const detections: Array<[number, Record<string, number>]> = [];
  let at = 1;
  for (const [seconds, detection] of utterances) {
    regions.push({ start: at, end: at + seconds });
    detections.push([at, detection]);
    at += seconds + 1.5;
  }
  return { regions, pcm: timedPcm(at + 1), ...recordedDetector(detections) };
}

async function planOf(utterances: Array<[number, Record<string, number>]>, before?: LanguageEvidence): Promise<LanguagePlan> {
  const { regions, pcm, detect } = recording(utterances);
  return planLanguage({ choice: ALL, pcm, sampleRate: RECORDED_RATE, regions, detect, ...(before ? { before } : {}) });
}

const runsOf = (plan: LanguagePlan) => plan.runs.map((r) => [r.language, r.regions.length]);

t.test('each detection gets a verdict by the families summed probability', async (t) => {
  const families = (p: Record<string, number>) => LANGUAGE_FAMILIES.reduce((s, f) => s + (p[f] ?? 0), 0);
  t.ok(families(EN_AS_CY) >= FAMILIES_DOMINATE_SHARE, `Welsh on top, families ${families(EN_AS_CY).toFixed(3)}`);
  t.same(judgeLanguage(EN_AS_CY, LANGUAGE_FAMILIES), { kind: 'family', language: 'en' }, 'the families dominate: the best of them');
  t.same(judgeLanguage(ES_AS_GL, LANGUAGE_FAMILIES), { kind: 'family', language: 'es' });
  t.ok(families(EN_AS_NN) > OUTSIDE_FAMILIES_SHARE && families(EN_AS_NN) < FAMILIES_DOMINATE_SHARE);
  t.same(judgeLanguage(EN_AS_NN, LANGUAGE_FAMILIES), { kind: 'uncertain' });
  t.same(judgeLanguage(IT_UNSURE, LANGUAGE_FAMILIES), { kind: 'uncertain' });
  for (const outside of [IT, IT2, PL]) {
    t.ok(families(outside) < 0.1, `families ${families(outside).toFixed(3)}`);
    t.same(judgeLanguage(outside, LANGUAGE_FAMILIES), { kind: 'outside' });
  }
  t.same(judgeLanguage(EN, LANGUAGE_FAMILIES), { kind: 'family', language: 'en' });
  t.same(judgeLanguage(IT, ['es', 'pt']), { kind: 'outside' }, 'judged among the candidates given');
  // The bands' edges.
  t.same(judgeLanguage({ it: 0.5, en: 0.5 }, LANGUAGE_FAMILIES), { kind: 'family', language: 'en' }, 'half is enough');
  t.same(judgeLanguage({ it: 0.6, en: 0.2, sw: 0.2 }, LANGUAGE_FAMILIES), { kind: 'uncertain' }, 'a fifth is not outside');
  t.same(judgeLanguage({ it: 0.6, en: 0.19, sw: 0.21 }, LANGUAGE_FAMILIES), { kind: 'outside' });
  t.same(
    judgeLanguage({ en: 0.19, it: 0.18, sw: 0.18, ja: 0.18, ko: 0.18, zh: 0.09 }, LANGUAGE_FAMILIES),
    { kind: 'outside' },
    'a flat answer is outside even with English on top',
  );
});

t.test('a confident Italian recording is refused, naming Italian', async (t) => {
  const error = await planOf([
    [6, IT],
    [4, IT2],
    [9, IT],
    [0.6, IT],
    [3, IT2],
  ]).catch((e: unknown) => e);
  t.ok(error instanceof UnsupportedDetectedLanguage, 'refused with the error the API answers 422 and a job fails with');
  t.equal((error as UnsupportedDetectedLanguage).detected, 'it');
  // The same with whisper less sure on every utterance: none in a family, judged pooled.
  await t.rejects(
    planOf([
      [5, IT_UNSURE],
      [4, IT_UNSURE],
    ]),
    UnsupportedDetectedLanguage,
  );
});

t.test('English with outlier utterances is English throughout', async (t) => {
  const { regions, pcm, detect, calls } = recording([
    [6, EN],
    [5, EN2],
    [2, EN_AS_CY],
    [8, EN],
    [1.5, EN_AS_NN],
    [4, EN2],
  ]);
  const plan = await planLanguage({ choice: ALL, pcm, sampleRate: RECORDED_RATE, regions, detect });
  t.equal(calls.length, 6, 'every utterance detected');
  t.same(runsOf(plan), [['en', 6]], 'one run: the Welsh-topped answer takes the best family, the uncertain one inherits');
  t.equal(plan.language, 'en');
  t.same(plan.detection, { mode: 'per_utterance', candidates: [...LANGUAGE_FAMILIES], languages: ['en'], utterances: 6, fallbacks: 0 });
  t.same(plan.evidence, { last: 'en', detectedSeconds: 26.5, outsideSeconds: 0, openPassageSeconds: 0 });
});

t.test('accented English with no utterance in a family is judged on its pooled probabilities', async (t) => {
  const plan = await planOf([
    [3, EN_AS_NN],
    [2.5, EN_AS_AF],
    [2, EN_AS_NN],
  ]);
  t.same(runsOf(plan), [['en', 3]], 'each uncertain, together English');
});

t.test('a code-switched English and Spanish file gives two runs', async (t) => {
  const plan = await planOf([
    [5, EN],
    [7, EN2],
    [0.7, EN],
    [6, ES],
    [2, ES_AS_GL],
    [5, ES],
  ]);
  t.same(runsOf(plan), [
    ['en', 3],
    ['es', 3],
  ]);
  t.equal(plan.language, 'mixed');
  t.same(plan.detection?.languages, ['en', 'es']);
});

t.test('an utterance confidently outside the families inside long English speech takes its neighbours language', async (t) => {
  const english: Array<[number, Record<string, number>]> = Array.from({ length: 10 }, (_, i) => [6, i % 2 ? EN : EN2]);
  const plan = await planOf([...english.slice(0, 5), [4, PL], ...english.slice(5)]);
  t.same(runsOf(plan), [['en', 11]], 'Polish is 4 s of 64: transcribed with its neighbours, the request is not refused');
  t.same(plan.evidence, { last: 'en', detectedSeconds: 64, outsideSeconds: 4, openPassageSeconds: 0 });
});

t.test(`refused when a quarter of the detected speech is outside the families`, async (t) => {
  t.equal(REFUSED_OUTSIDE_SPEECH_SHARE, 0.25);
  // 4 s of Italian in 13 s: 31 %.
  await t.rejects(
    planOf([
      [6, EN],
      [4, IT],
      [3, EN2],
    ]),
    UnsupportedDetectedLanguage,
  );
  // 3 s in 15 s: 20 %, inherited.
  const plan = await planOf([
    [6, EN],
    [3, IT],
    [6, EN2],
  ]);
  t.same(runsOf(plan), [['en', 3]]);
});

t.test('refused on a passage of half a minute outside the families; the same seconds scattered are not', async (t) => {
  t.equal(REFUSED_OUTSIDE_PASSAGE_SECONDS, 30);
  const english = (n: number): Array<[number, Record<string, number>]> => Array.from({ length: n }, () => [6, EN]);
  const italian: Array<[number, Record<string, number>]> = Array.from({ length: 6 }, (_, i) => [6, i % 2 ? IT : IT2]);
  // 120 s of English, 36 s of Italian in a row (one uncertain utterance inside does not end it), 30 s of English: 19 % outside.
  await t.rejects(planOf([...english(20), ...italian.slice(0, 3), [2, IT_UNSURE], ...italian.slice(3), ...english(5)]), UnsupportedDetectedLanguage);
  // The same six Italian utterances, each between English ones.
  const scattered = english(25).flatMap((u, i) => (i % 4 === 1 && i < 24 ? [u, italian[(i - 1) / 4]] : [u]));
  t.equal(scattered.length, 31);
  const plan = await planOf(scattered);
  t.same(runsOf(plan), [['en', 31]]);
  t.equal(plan.evidence?.outsideSeconds, 36);
});

t.test("a job's chunk is judged with the chunks before it", async (t) => {
  // Five minutes of English so far; this chunk holds only a closing 2 s in Polish.
  const before: LanguageEvidence = { last: 'en', detectedSeconds: 280, outsideSeconds: 0, openPassageSeconds: 0 };
  const thin = await planOf([[2, PL]], before);
  t.same(runsOf(thin), [['en', 1]], 'inherits the English before it');
  t.same(thin.evidence, { last: 'en', detectedSeconds: 282, outsideSeconds: 2, openPassageSeconds: 2 });
  await t.rejects(planOf([[2, PL]]), UnsupportedDetectedLanguage, 'alone, the same chunk is Polish');
  // A passage outside the families goes on across a chunk's edge.
  const open: LanguageEvidence = { last: 'en', detectedSeconds: 300, outsideSeconds: 24, openPassageSeconds: 24 };
  await t.rejects(planOf([[8, IT]], open), UnsupportedDetectedLanguage, '24 s before the edge and 8 s after it');
  // Short utterances alone in a chunk are detected together and judged the same way.
  const shortOnly = await planOf(
    [
      [0.6, PL],
      [0.5, EN],
    ],
    before,
  );
  t.same(runsOf(shortOnly), [['en', 2]]);
});

t.test('decideLanguages: evidence adds up, and a first stretch with nothing in a family is judged pooled', async (t) => {
  const u = (speechSeconds: number, probabilities: Record<string, number> | null) => ({ speechSeconds, probabilities });
  t.same(decideLanguages([u(3, EN), u(0.5, null), u(2, PL), u(4, ES)], LANGUAGE_FAMILIES, NO_LANGUAGE_EVIDENCE), {
    refused: false,
    languages: ['en', 'en', 'en', 'es'],
    evidence: { last: 'es', detectedSeconds: 9, outsideSeconds: 2, openPassageSeconds: 0 },
  });
  t.same(decideLanguages([u(3, EN_AS_NN), u(3, IT_UNSURE)], LANGUAGE_FAMILIES), { refused: true, detected: 'it' }, 'pooled: Italian leads');
});

t.test('hints are vouched for: the likeliest hinted family, never refused', async (t) => {
  const { regions, pcm, detect } = recording([
    [4, IT],
    [3, PL],
  ]);
  const hints = [parseLanguageTag('es')!, parseLanguageTag('en-GB')!];
  const plan = await planLanguage({ choice: { mode: 'auto', hints }, pcm, sampleRate: RECORDED_RATE, regions, detect });
  t.same(runsOf(plan), [
    ['es', 1],
    ['en', 1],
  ]);
  t.equal(plan.evidence, null, 'nothing to carry: hints never refuse');
});

t.test('without speech: `auto` says detected, with a block of no utterances and the candidates as asked', async (t) => {
  t.same(noSpeechLanguage(ALL), {
    source: 'detected',
    detection: { mode: 'per_utterance', candidates: [...LANGUAGE_FAMILIES], languages: [], utterances: 0, fallbacks: 0 },
  });
  t.same(noSpeechLanguage({ mode: 'auto', hints: [parseLanguageTag('es-MX')!, parseLanguageTag('pt')!, parseLanguageTag('es')!] }), {
    source: 'detected',
    detection: { mode: 'per_utterance', candidates: ['es', 'pt'], requested_candidates: ['es-MX', 'pt', 'es'], languages: [], utterances: 0, fallbacks: 0 },
  });
  t.same(noSpeechLanguage({ mode: 'explicit', language: parseLanguageTag('de')!, source: 'default' }), { source: 'default', detection: null });
  t.same(noSpeechLanguage({ mode: 'explicit', language: parseLanguageTag('de')!, source: 'requested' }), { source: 'requested', detection: null });
  t.same(noSpeechLanguage({ mode: 'dominant' }), { source: 'default', detection: null }, 'nothing asked and nothing detected');
});
