// smart_format and redact as the last stage of a transcription (issue 45.3, 46.1), on a recorded decode
// (the engine's Transcript shape, one token per word: the words are what matter here, and a generated
// model's words are noise). Everything an answer is shaped from is checked in every response format and
// in a job's assembled result: no identifier survives anywhere, formatted quantities replace the words
// said, and the times stay those of the words.
import t from 'tap';

import { RESPONSE_FORMATS } from '../../src/contract/request-fields.js';
import { responseBody, verboseBody } from '../../src/contract/response-body.js';
import { parseLanguageTag } from '../../src/domain/language-families.js';
import { parseStoredJobRequest } from '../../src/jobs/job-request.js';
import { appendChunk, emptyTranscript, type FinalContext, finalResult } from '../../src/jobs/job-transcript.js';
import { keepsUnredacted, unredactedOutcome } from '../../src/jobs/job-unredacted.js';
import { applyClinicalText } from '../../src/pipeline/clinical-text-stage.js';
import type { Transcribe } from '../../src/pipeline/recognised-segment.js';
import { runTranscription, type TranscriptionOutcome } from '../../src/pipeline/run-transcription.js';
import { recordedSegment } from '../helpers/recorded-pass.js';

const RATE = 100;
const SAID = [
  { text: ' My name is John Smith, date of birth March third, nineteen fifty.', start: 0, end: 5 },
  { text: ' Give metoprolol twenty five milligrams twice daily.', start: 5, end: 8 },
  { text: ' Call me at five five five, zero one nine two.', start: 8, end: 12 },
];
/** What must not survive redaction, in any casing, anywhere in an answer. */
const IDENTIFIERS = ['John', 'Smith', 'March', 'nineteen fifty', 'five five five', 'zero one nine two'];

const transcribe: Transcribe = async (pcm) => ({
  text: SAID.map((s) => s.text).join(''),
  language: 'en',
  languageProbability: null,
  durationSeconds: pcm.length / RATE,
  segments: SAID.map(recordedSegment),
  timings: {} as never,
});

async function decoded(): Promise<TranscriptionOutcome> {
  return runTranscription(
    new Float32Array(12 * RATE),
    {
      language: { mode: 'explicit', language: parseLanguageTag('en')!, source: 'requested' },
      dictionary: false,
      vocabulary: [],
      diarize: false,
      wordTimestamps: true,
    },
    {
      transcribe,
      detectLanguage: async () => {
        throw new Error('not asked');
      },
      detectSpeech: null,
      decoding: { beamSize: 1, maxTokens: 0, temperatureFallback: false },
      sampleRate: RATE,
      dictionaryFor: async () => [],
    },
  );
}

const context = { requestId: 'req_1', model: 'svc-medical-1' as const, modelBuild: 'test' };

t.test('neither asked: the outcome is the decode, untouched', async (t) => {
  const outcome = await decoded();
  t.equal(applyClinicalText(outcome, {}), outcome);
  t.equal(applyClinicalText(outcome, { smartFormat: false, redact: null }), outcome);
  t.notOk('redaction' in applyClinicalText(outcome, {}));
});

t.test('redacted and formatted: no identifier in any format, quantities written, times kept', async (t) => {
  const decode = await decoded();
  t.match(decode.text, /John Smith/, 'the decode says the name');
  const outcome = applyClinicalText(decode, { smartFormat: true, redact: ['identifiers'] });
  for (const format of RESPONSE_FORMATS) {
    const { body } = responseBody(outcome, format, context);
    for (const identifier of IDENTIFIERS) t.notOk(body.toLowerCase().includes(identifier.toLowerCase()), `${format}: no "${identifier}"`);
    t.match(body, /25 mg/, `${format}: the dose as a chart writes it`);
  }
  const verbose = verboseBody(outcome, context);
  t.match(verbose.text, /My name is \[PERSON_NAME\], date of birth \[DATE\]\. Give metoprolol 25 mg twice daily\. Call me at \[PHONE_NUMBER\]\./);
  t.same(
    verbose.redactions!.map((r) => r.type),
    ['person_name', 'date', 'phone_number'],
  );
  t.same(verbose.redaction_counts, { person_name: 1, date: 1, phone_number: 1 });
  // Each redaction's times are its words': inside the segment that said it.
  const [name, date, phone] = verbose.redactions!;
  t.ok(name.start >= 0 && name.end <= 5 && name.start < name.end, `the name at ${name.start}-${name.end} s`);
  t.ok(date.start >= 0 && date.end <= 5 && date.start < date.end, `the date at ${date.start}-${date.end} s`);
  t.ok(phone.start >= 8 && phone.end <= 12, `the phone number at ${phone.start}-${phone.end} s`);

  const words = verbose.words!;
  const decodedWords = verboseBody(decode, context).words!;
  t.ok(
    decodedWords.every((w) => w.confidence === 0.9),
    "each word's confidence: its tokens' mean probability",
  );
  t.ok(
    words.every((w) => w.confidence === 0.9),
    'kept by formatting and redaction',
  );
  t.equal(words[0].start, decodedWords[0].start, 'the first word keeps its start');
  t.equal(words.at(-1)!.end, decodedWords.at(-1)!.end, 'the last its end');
  const dose = words.find((w) => w.word.trim() === '25 mg');
  const said = decodedWords.filter((w) => w.start >= 5 && w.end <= 8 && ['twenty', 'five', 'milligrams'].includes(w.word.trim()));
  t.ok(dose, 'the dose is one word');
  t.same([dose!.start, dose!.end], [said[0].start, said.at(-1)!.end], 'spanning the words it replaced');
  t.ok(
    words.some((w) => w.word.trim() === '[PERSON_NAME]'),
    'a redacted word says its class',
  );

  // Token ids spell the words: a redacted segment has none, and keeps the confidence computed from them.
  const [first, second] = verbose.segments;
  t.same(first.tokens, [], 'no tokens on the redacted segment');
  t.equal(first.confidence, 0.9, 'its confidence stays');
  t.ok(second.tokens.length > 0, 'a segment only formatted keeps its tokens');
});

t.test('hash substitution writes #### whatever was removed', async (t) => {
  const outcome = applyClinicalText(await decoded(), { redact: ['person_name', 'phone_number'], redactSubstitution: 'hash' });
  t.match(outcome.text, /My name is ####, date of birth March third, nineteen fifty\..* Call me at ####\./);
  t.same(outcome.redaction?.counts, { person_name: 1, phone_number: 1 }, 'only the classes asked for');
});

t.test("a job's result: redactions in the recording's time, nothing else of them", async (t) => {
  const outcome = applyClinicalText(await decoded(), { smartFormat: true, redact: ['identifiers'] });
  const body = verboseBody(outcome, context);
  const once = appendChunk(emptyTranscript('en'), outcome, body, 0, 12, 1);
  const twice = appendChunk(once, outcome, body, 12, 12, 2);
  t.equal(twice.redactions?.length, 6);
  t.same(
    twice.redactions!.slice(3).map((r) => r.start),
    body.redactions!.map((r) => Math.round((r.start + 12) * 1000) / 1000),
    'the second chunk is 12 s in',
  );
  t.same(twice.redaction_counts, { person_name: 2, date: 2, phone_number: 2 });
  const ctx = {
    jobId: 'job_1',
    task: 'transcribe',
    model: 'svc-medical-1',
    modelBuild: 'test',
    languageSource: 'requested',
    detection: null,
    wordTiming: true,
    durationSeconds: 24,
    asrMs: 1,
    vocabulary: null,
    patterns: null,
    speakerTiming: body.speaker_timing,
    apiVersion: 'test',
  } satisfies Omit<FinalContext, 'format'>;
  for (const format of RESPONSE_FORMATS) {
    const result = finalResult(twice, { ...ctx, format });
    for (const identifier of IDENTIFIERS) t.notOk(result.body.toLowerCase().includes(identifier.toLowerCase()), `${format}: no "${identifier}"`);
    if (format === 'json' || format === 'verbose_json') t.same(JSON.parse(result.body).redaction_counts, twice.redaction_counts, `${format}: the counts`);
  }
});

t.test('redact_output=redacted_and_unredacted: the copy is the same text formatted alike, its identifiers left in', async (t) => {
  const request = parseStoredJobRequest({
    responseFormat: 'verbose_json',
    clinicalText: { smartFormat: true, redact: ['identifiers'], redactOutput: 'redacted_and_unredacted' },
  });
  t.ok(keepsUnredacted(request), 'asked');
  t.notOk(keepsUnredacted(parseStoredJobRequest({ clinicalText: { redact: ['identifiers'] } })), 'not asked: the redacted one only');
  const recognised = await decoded();
  const redacted = applyClinicalText(recognised, request.clinicalText);
  const plain = unredactedOutcome(recognised, request);
  t.equal(plain.redaction, null, 'nothing redacted in the copy');
  for (const identifier of IDENTIFIERS) t.notOk(redacted.text.toLowerCase().includes(identifier.toLowerCase()), `the result has no "${identifier}"`);
  // As the result writes them before redaction: smart_format writes the year and the number in figures.
  for (const identifier of ['John Smith', 'March 3, 1950', 'five five five, zero one nine two'])
    t.ok(plain.text.includes(identifier), `the copy keeps "${identifier}"`);
  t.match(plain.text, /25 mg/, 'formatted as the result is');
  t.match(redacted.text, /25 mg/);
  const copy = appendChunk(emptyTranscript('en'), plain, verboseBody(plain, context), 0, 12, 1);
  const result = appendChunk(emptyTranscript('en'), redacted, verboseBody(redacted, context), 0, 12, 1);
  t.same(
    copy.segments.map((s) => [s.start, s.end]),
    result.segments.map((s) => [s.start, s.end]),
    'the same segments at the same times',
  );
  t.notOk('redactions' in copy, 'the copy says nothing of redaction');
});

t.test('confidence_threshold marks the words and segments below it, for a reviewer', async (t) => {
  const decode = await decoded();
  const none = verboseBody(applyClinicalText(decode, { confidenceThreshold: 0.5 }), context);
  t.notOk(none.words!.some((w) => 'low_confidence' in w) || none.segments.some((s) => 'low_confidence' in s), 'every word said at 0.9 is above 0.5');
  const all = verboseBody(applyClinicalText(decode, { confidenceThreshold: 0.95 }), context);
  t.ok(
    all.words!.every((w) => (w as { low_confidence?: true }).low_confidence === true),
    'every word below 0.95',
  );
  t.ok(
    all.segments.every((s) => s.low_confidence === true),
    'every segment too',
  );
  const redacted = verboseBody(applyClinicalText(decode, { redact: ['identifiers'], confidenceThreshold: 0.95 }), context);
  t.ok(
    redacted.segments.every((s) => s.low_confidence === true && s.confidence === 0.9),
    'a redacted segment is judged on the confidence it kept',
  );
});
