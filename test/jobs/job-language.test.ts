// A job's language across its chunks (src/jobs/job-language.ts) for `language=auto`: each chunk runs
// the pipeline (runTranscription, with recorded detections and a recogniser that hears nothing) with
// what the chunks before it established, as JobChunkProcessor does, so the rule that refuses speech
// outside the families is over the recording and a chunk of silence still reports detection.
import t from 'tap';

import { LANGUAGE_FAMILIES } from '../../src/domain/language-families.js';
import { afterChunk, chunkChoice, finalSource, INITIAL_LANGUAGE_STATE, type JobLanguageState } from '../../src/jobs/job-language.js';
import type { LanguageChoice } from '../../src/pipeline/language-stage.js';
import { UnsupportedDetectedLanguage } from '../../src/pipeline/pipeline-errors.js';
import type { Transcribe } from '../../src/pipeline/recognised-segment.js';
import { runTranscription, type TranscriptionOutcome } from '../../src/pipeline/run-transcription.js';
import type { SpeechRegion } from '../../src/pipeline/speech-regions.js';
import { RECORDED_RATE, recordedDetector, timedPcm, whisperDetection } from '../helpers/recorded-detections.js';

const EN = whisperDetection({ en: 0.95, cy: 0.012, de: 0.008, nl: 0.006, es: 0.004 });
const PL = whisperDetection({ pl: 0.93, cs: 0.02, uk: 0.015, ru: 0.01, sk: 0.01, en: 0.006 });
const AUTO: LanguageChoice = { mode: 'auto', hints: null };

/** A recogniser that hears no words: the language decisions are what is tested. */
const transcribe: Transcribe = async (pcm) => ({
  text: '',
  language: 'en',
  languageProbability: null,
  durationSeconds: pcm.length / RECORDED_RATE,
  segments: [],
  timings: {} as never,
});

/** One chunk of `seconds`, with speech `[start, seconds, detection]`, run as the job runs it after `state`. */
async function chunk(state: JobLanguageState, seconds: number, speech: Array<[number, number, Record<string, number>]>): Promise<TranscriptionOutcome> {
  const regions: SpeechRegion[] = speech.map(([start, length]) => ({ start, end: start + length }));
  const { detect } = recordedDetector(speech.map(([start, , detection]) => [start, detection]));
  return runTranscription(
    timedPcm(seconds),
    { language: chunkChoice(state, AUTO), dictionary: false, vocabulary: [], diarize: false },
    {
      transcribe,
      detectLanguage: detect,
      detectSpeech: null,
      decoding: { beamSize: 1, maxTokens: 0, temperatureFallback: false },
      sampleRate: RECORDED_RATE,
      dictionaryFor: async () => [],
    },
    { regions, ...(state.evidence ? { languageBefore: state.evidence } : {}) },
  );
}

t.test('an auto job judges each chunk with the chunks before it', async (t) => {
  // First chunk: 30 utterances of English, 4 s each.
  const english = Array.from({ length: 30 }, (_, i): [number, number, Record<string, number>] => [1 + i * 6, 4, EN]);
  const first = await chunk(INITIAL_LANGUAGE_STATE, 190, english);
  t.same(first.families, ['en']);
  const afterFirst = afterChunk(INITIAL_LANGUAGE_STATE, AUTO, first);
  t.same(afterFirst.evidence, { last: 'en', detectedSeconds: 120, outsideSeconds: 0, openPassageSeconds: 0 });

  // The last chunk holds only a closing 2 s whisper puts in Polish: alone it would be refused.
  const closing: Array<[number, number, Record<string, number>]> = [[1, 2, PL]];
  await t.rejects(chunk(INITIAL_LANGUAGE_STATE, 5, closing), UnsupportedDetectedLanguage, 'judged alone, the chunk is Polish');
  const last = await chunk(afterFirst, 5, closing);
  t.same(last.families, ['en'], 'after two minutes of English, the closing words are transcribed with them');
  const afterLast = afterChunk(afterFirst, AUTO, last);
  t.same(afterLast.evidence, { last: 'en', detectedSeconds: 122, outsideSeconds: 2, openPassageSeconds: 2 });
  t.equal(finalSource(afterLast, AUTO), 'detected');

  // A chunk without speech carries the evidence on unchanged.
  const silent = await chunk(afterLast, 10, []);
  t.same(afterChunk(afterLast, AUTO, silent).evidence, afterLast.evidence);
});

t.test('an auto job that opens with silence says detected and reports no utterances until it hears some', async (t) => {
  const silent = await chunk(INITIAL_LANGUAGE_STATE, 20, []);
  const afterSilence = afterChunk(INITIAL_LANGUAGE_STATE, AUTO, silent);
  t.equal(finalSource(afterSilence, AUTO), 'detected', 'a partial result before any speech: detected, never default');
  t.same(afterSilence.detection, { mode: 'per_utterance', candidates: [...LANGUAGE_FAMILIES], languages: [], utterances: 0, fallbacks: 0 });
  t.equal(afterSilence.language, 'und');

  const speech = await chunk(afterSilence, 20, [
    [1, 3, EN],
    [6, 3, EN],
  ]);
  const afterSpeech = afterChunk(afterSilence, AUTO, speech);
  t.same(afterSpeech.detection, { mode: 'per_utterance', candidates: [...LANGUAGE_FAMILIES], languages: ['en'], utterances: 2, fallbacks: 0 });
  t.equal(finalSource(afterSpeech, AUTO), 'detected');
});

t.test('before any speech, other choices keep their sources', async (t) => {
  t.equal(finalSource(INITIAL_LANGUAGE_STATE, { mode: 'dominant' }), 'default', 'nothing asked, nothing detected');
  t.equal(finalSource(INITIAL_LANGUAGE_STATE, { mode: 'explicit', language: { tag: 'nl', family: 'nl' }, source: 'default' }), 'default');
  t.equal(finalSource(INITIAL_LANGUAGE_STATE, { mode: 'explicit', language: { tag: 'pt-BR', family: 'pt' }, source: 'requested' }), 'requested');
});
