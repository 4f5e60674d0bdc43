// The pipeline's stages end to end on the real engine: Silero VAD with the weights converted at
// install, a generated Whisper model (its words are noise; where speech is, and what the pipeline
// decodes, are real), espeak-ng speech and sox signals.
import t from 'tap';

import { LANGUAGE_FAMILIES } from '../../src/domain/language-families.js';
import { Engine } from '../../src/engine/engine.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { UnsupportedDetectedLanguage } from '../../src/pipeline/pipeline-errors.js';
import { transcribePcm } from '../../src/pipeline/transcribe-pcm.js';
import { soxSignal, type SpeechSpan, speechWithSilences } from '../helpers/speech-with-silences.js';
import { testModelPath } from '../helpers/test-models.js';

const RATE = 16_000;
const decoding = { maxTokens: 16, temperatureFallback: false };
let engine: Engine;

t.before(async () => {
  engine = await Engine.open({ model: await testModelPath('micro', 1), workers: 1, threadsPerWorker: 1, vadModel: vadModelPath() });
});
t.teardown(() => engine.close());

t.test('silence, noise and tones say nothing and cost no model call beyond the VAD', async (t) => {
  const signals: Array<[string, Float32Array]> = [
    ['digital silence', new Float32Array(20 * RATE)],
    ['white noise', await soxSignal('whitenoise-vol0.1', 10, ['whitenoise'], ['vol', '0.1'])],
    ['pink noise', await soxSignal('pinknoise-vol0.1', 10, ['pinknoise'], ['vol', '0.1'])],
    ['dial tone', await soxSignal('dial-vol0.3', 10, ['sine', '350', 'sine', '440'], ['vol', '0.3'])],
  ];
  for (const [name, pcm] of signals) {
    for (const language of [undefined, 'auto', 'en']) {
      const before = engine.stats.calls;
      const outcome = await transcribePcm(engine, pcm, { language, decoding });
      const after = engine.stats.calls;
      t.equal(outcome.text, '', `${name}, language ${language}: no text`);
      t.same(outcome.segments, [], 'no segments');
      t.equal(outcome.language, 'und');
      // Asked to detect, the answer says it did (on no utterances), never that it fell back to a default.
      t.equal(outcome.languageSource, { auto: 'detected', en: 'requested' }[language ?? ''] ?? 'default', 'language_source');
      const noUtterances = { mode: 'per_utterance', candidates: [...LANGUAGE_FAMILIES], languages: [], utterances: 0, fallbacks: 0 };
      t.same(outcome.detection, language === 'auto' ? noUtterances : null, 'a detection block for auto only');
      t.equal(after.transcribe, before.transcribe, 'transcribe never called');
      t.equal(after.detectLanguage, before.detectLanguage, 'no language detection');
      t.equal(after.detectSpeech, before.detectSpeech + 1, 'one VAD call');
    }
  }
  // With the VAD off, the same silence is decoded (the comparison the VAD is for).
  const before = engine.stats.calls.transcribe;
  await transcribePcm(engine, new Float32Array(20 * RATE), { language: 'en', vad: false, decoding });
  t.equal(engine.stats.calls.transcribe, before + 1, '--no-vad decodes silence');
});

t.test('speech after long silences: only speech is decoded, and every time lands on it', async (t) => {
  const audio = await speechWithSilences({ sentences: [0, 1, 2], silences: [30, 40, 12, 5] });
  const before = engine.stats.calls.transcribe;
  const outcome = await transcribePcm(engine, audio.pcm, { language: 'en', wordTimestamps: true, decoding });
  t.equal(engine.stats.calls.transcribe, before + 1, 'one run, one engine call');
  const spoken = audio.truth.reduce((sum, s) => sum + (s.end - s.start), 0);
  t.ok(outcome.speech.seconds < spoken + 1 && outcome.speech.seconds > spoken - 0.5, `speech ${outcome.speech.seconds} s of ${audio.seconds} s`);
  t.ok(outcome.segments.length > 0, 'segments');
  const onSpeech = (time: number) => audio.truth.some((s: SpeechSpan) => time >= s.start - 0.1 && time <= s.end + 0.1);
  for (const segment of outcome.segments) {
    t.ok(onSpeech(segment.start) && onSpeech(segment.end), `segment ${segment.start}-${segment.end} lies on speech`);
    for (const token of segment.tokens) {
      if (token.start !== null) t.ok(onSpeech(token.start) && onSpeech(token.end!), `token ${token.start}-${token.end} lies on speech`);
    }
  }
  t.ok(outcome.segments[0].start >= audio.truth[0].start - 0.1, 'nothing is timed in the 30 s of opening silence');
});

t.test('language=auto: every utterance detected, segments carry their run language', async (t) => {
  // Three voices with 2 s between sentences: three utterances.
  const parts = await Promise.all(['en-us', 'es', 'de'].map((voice, i) => speechWithSilences({ sentences: [i], silences: [i === 0 ? 1 : 2, 0], voice })));
  const pcm = new Float32Array(parts.reduce((n, p) => n + p.pcm.length, 0) + RATE);
  let at = 0;
  for (const part of parts) {
    pcm.set(part.pcm, at);
    at += part.pcm.length;
  }
  const before = engine.stats.calls;
  // Hinted: random weights find unsupported languages likeliest, which unhinted auto refuses.
  const outcome = await transcribePcm(engine, pcm, { language: 'auto', languageHints: [...LANGUAGE_FAMILIES], decoding });
  const after = engine.stats.calls;
  t.equal(outcome.detection?.utterances, 3);
  t.equal(after.detectLanguage - before.detectLanguage, 3, 'one detection per utterance');
  const languages = outcome.detection!.languages;
  t.ok(languages.length >= 1 && languages.every((l) => (LANGUAGE_FAMILIES as readonly string[]).includes(l)));
  const calls = after.transcribe - before.transcribe;
  t.ok(calls >= languages.length && calls <= 3, `one engine call per run (${calls} for ${languages.length} languages)`);
  t.equal(outcome.language, languages.length === 1 ? languages[0] : 'mixed');
  for (const segment of outcome.segments) t.ok(languages.includes(segment.language), 'segment language is a run language');
  t.equal(outcome.languageSource, 'detected');

  // Unhinted, the same audio's likeliest language (for this generated model) is not a supported one.
  await t.rejects(transcribePcm(engine, pcm, { language: 'auto', decoding }), UnsupportedDetectedLanguage);
});
