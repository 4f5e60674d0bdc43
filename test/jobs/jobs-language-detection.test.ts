// A job without `language`, on a key without a default language, is transcribed in the dominant
// language detected from its speech (contract, behavioural rule 2), on the real service. Generated
// models make random words but detect for real: the expected language is computed here with an Engine
// on the same model and the same speech (the VAD's regions, packed), restricted to the eight supported
// families independently of the service's language stage. Also: a recording opening with silence is
// decided on its first chunk with speech, and partial results before it declare nothing; a key's
// default language and an explicit language are not detected; the direct-upload route detects too.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import t, { type Test } from 'tap';

import { decodeAudioWindow } from '../../src/audio/index.js';
import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
import { Engine } from '../../src/engine/engine.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { packRegions } from '../../src/pipeline/speech-regions.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { testModelPath } from '../helpers/test-models.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

const execFileAsync = promisify(execFile);
const SUPPORTED = ['en', 'es', 'pt', 'fr', 'de', 'nl', 'ar', 'hi'];
const MODEL_SEED = 3;

let svc: TestService;
let engine: Engine;
let dir: string;
let speech: { path: string; data: Uint8Array }; // 12 s of speech
let lateSpeech: { path: string; data: Uint8Array }; // 30 s of silence, then the same 12 s of speech
let silentOpening: { path: string; data: Uint8Array }; // 121 s of silence (four windows and more), then 6 s of speech

/** `seconds` of digital silence followed by `speechPath`, as 16 kHz mono s16 WAV. */
async function silenceThen(seconds: number, speechPath: string, name: string) {
  const out = join(dir, name);
  await execFileAsync('ffmpeg', [
    ...['-nostdin', '-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `anullsrc=r=16000:cl=mono:d=${seconds}`, '-i', speechPath],
    ...['-filter_complex', '[0:a][1:a]concat=n=2:v=0:a=1', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '-f', 'wav', out],
  ]);
  return { path: out, data: await readFile(out) };
}

t.before(async () => {
  const model = await testModelPath('micro', MODEL_SEED);
  // Chunks of 20 s: 12 s of speech is one chunk; the 42 s recording makes partial results, its first
  // chunk silent. Threads as the service's, so both compute the same numbers.
  svc = await startTestService({ SVC_MODEL: model, SVC_JOB_CHUNK_SECONDS: '20', SVC_INLINE_BOUNDARY_SECONDS: '8' });
  engine = await Engine.open({ model, workers: 1, threadsPerWorker: 2, vadModel: vadModelPath() });
  dir = await mkdtemp(join(tmpdir(), 'svc-language-'));
  const speechPath = await speechWav(12);
  speech = { path: speechPath, data: await readFile(speechPath) };
  lateSpeech = await silenceThen(30, speechPath, 'silence30-speech12.wav');
  silentOpening = await silenceThen(121, await speechWav(6), 'silence121-speech6.wav');
});
t.teardown(async () => {
  await svc?.close();
  await engine?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * The supported family the engine finds most probable on the file's speech from `startSeconds` on (the
 * start of the job's chunk that holds it; under 30 s of speech).
 */
async function expectedFamily(path: string, startSeconds = 0): Promise<string> {
  const pcm = await decodeAudioWindow(path, { startSeconds, seconds: 60, container: 'wav', timeoutMs: 60_000 });
  const speech = packRegions(pcm, SAMPLE_RATE, (await engine.detectSpeech(pcm)).segments).pcm;
  const detected = await engine.detectLanguage(speech, { audioSeconds: speech.length / SAMPLE_RATE });
  let best = SUPPORTED[0];
  for (const family of SUPPORTED) if ((detected.probabilities[family] ?? 0) > (detected.probabilities[best] ?? 0)) best = family;
  return best;
}

/** Runs a presigned job to its end, collecting the partial results seen on the way; returns the final result. */
async function runJob(t: Test, key: string, data: Uint8Array, extra: Record<string, unknown> = {}) {
  const job = await createJob(svc.url, key, jobBody(data, { response_format: 'verbose_json', ...extra }));
  t.equal((await uploadFile(job, data)).status, 204);
  t.equal((await completeJob(job, key)).status, 202);
  const partials: any[] = [];
  for (;;) {
    const { body } = await poll(job.poll_url, key, '?wait=20');
    if (body.transcription) {
      const partial = await fetch(body.transcription.partial_result_url, { headers: auth(key) });
      if (partial.status === 200) partials.push(await partial.json());
      else await partial.body?.cancel();
    }
    if (body.status === 'succeeded' || body.status === 'failed') break;
  }
  const done = await waitForEnd(job.poll_url, key);
  t.equal(done.status, 'succeeded', `job ${job.id} succeeded`);
  const result = (await poll(job.poll_url, key, '?include_result=true')).body.result.content;
  return { result, partials };
}

/** `language` of a result: the family, or `und` when no text came out (the contract's value for silence). */
const languageOf = (result: { text: string }, family: string) => (result.text === '' ? 'und' : family);

t.test('an omitted language is detected from the speech and declared `detected`', async (t) => {
  const expected = await expectedFamily(speech.path);
  t.ok(SUPPORTED.includes(expected));
  const { result } = await runJob(t, svc.key, speech.data);
  t.equal(result.language_source, 'detected');
  t.equal(result.language, languageOf(result, expected), `the most probable supported family (${expected})`);
  t.match(result.language_detection, { mode: 'per_utterance', candidates: SUPPORTED, languages: [expected], fallbacks: 0 });
  t.ok(result.language_detection.utterances >= 1, "the recording's utterances are counted");
  for (const segment of result.segments) t.equal(segment.language, expected, 'every segment in the detected language');
});

t.test('a recording opening with silence is decided on its first chunk with speech', async (t) => {
  const { result, partials } = await runJob(t, svc.key, lateSpeech.data);
  const expected = await expectedFamily(lateSpeech.path, partials[partials.length - 1].completed_audio_seconds);
  t.equal(result.language_source, 'detected');
  t.equal(result.language, languageOf(result, expected), `detected from the speech (${expected})`);
  t.ok(Math.abs(result.duration - 42) < 0.2, `the whole recording is transcribed (${result.duration} s)`);
  t.ok(partials.length > 0, `partial results were seen (${partials.length})`);
  for (const partial of partials) {
    // The first chunk (30 s of silence, cut near 20 s) decides nothing: it says so.
    if (partial.text === '') {
      t.equal(partial.language, 'und', `revision ${partial.result_revision}: nothing said yet`);
    } else {
      t.equal(partial.language, expected, `revision ${partial.result_revision}: the detected language`);
      t.equal(partial.language_source, 'detected', `revision ${partial.result_revision}: declared detected`);
    }
  }
});

t.test('speech only after the four opening windows is still detected, never a silent English default', async (t) => {
  const { result, partials } = await runJob(t, svc.key, silentOpening.data);
  // The speech is in the last chunk, which starts where the last partial result ends.
  const expected = await expectedFamily(silentOpening.path, partials[partials.length - 1].completed_audio_seconds);
  t.equal(result.language_source, 'detected');
  t.equal(result.language, languageOf(result, expected));
  t.ok(result.duration > 126.8, 'the speech after the fourth window is transcribed');
});

t.test("a key's default language is used as is, not detected", async (t) => {
  const dutch = await svc.createKey({ defaultLanguage: 'nl' });
  const { result, partials } = await runJob(t, dutch.key, speech.data);
  t.equal(result.language_source, 'default');
  t.equal(result.language, languageOf(result, 'nl'));
  for (const partial of partials) t.equal(partial.language_source, 'default');
});

t.test('the decision is made at acceptance: a default language set on the key afterwards does not change it', async (t) => {
  const later = await svc.createKey();
  const expected = await expectedFamily(speech.path);
  const job = await createJob(svc.url, later.key, jobBody(speech.data, { response_format: 'verbose_json' }));
  await svc.updateKey(later.id, { defaultLanguage: 'nl' });
  t.equal((await uploadFile(job, speech.data)).status, 204);
  t.equal((await completeJob(job, later.key)).status, 202);
  t.equal((await waitForEnd(job.poll_url, later.key)).status, 'succeeded');
  const result = (await poll(job.poll_url, later.key, '?include_result=true')).body.result.content;
  t.equal(result.language_source, 'detected');
  t.equal(result.language, languageOf(result, expected));
});

t.test('an explicit language is used as requested', async (t) => {
  const { result } = await runJob(t, svc.key, speech.data, { language: 'pt-BR' });
  t.equal(result.language_source, 'requested');
  t.equal(result.language, languageOf(result, 'pt-BR'));
});

t.test('the direct-upload route detects an omitted language too, also when it makes a job', async (t) => {
  const expected = await expectedFamily(lateSpeech.path);
  const res = await postTranscription(
    svc.url,
    svc.key,
    { model: 'svc-medical-1', response_format: 'verbose_json' },
    { data: lateSpeech.data, name: 'visit.wav', type: 'audio/wav' },
  );
  t.equal(res.status, 202, 'above the inline boundary: a job');
  const job = (await res.json()) as { poll_url: string };
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
  const result = (await poll(job.poll_url, svc.key, '?include_result=true')).body.result.content;
  t.equal(result.language_source, 'detected');
  t.equal(result.language, languageOf(result, expected));
});
