// A `POST /v1/jobs` job without `language`, on a key without a default language, is transcribed in the
// language detected from its first speech-bearing 30-second window (contract, behavioural rule 2), on
// the real service. Generated models make random words but detect for real: the expected language is
// computed here with an Engine on the same model and the same window, restricted to the eight
// supported families independently of the service's code. Also: a recording opening with 30 s of
// silence detects from its second window; four silent windows detect nothing (English, `default`); a
// key's default language and the direct-upload route are not detected.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { DECODED_SAMPLE_RATE, decodeAudioWindow } from '../../src/audio/index.js';
import { Engine } from '../../src/engine/engine.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { testModelPath } from '../helpers/test-models.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

const execFileAsync = promisify(execFile);
const SUPPORTED = ['en', 'es', 'pt', 'fr', 'de', 'nl', 'ar', 'hi'];
const WINDOW = 30 * DECODED_SAMPLE_RATE;
// Seed 3 of the micro model answers digital silence differently from speech, so a test detecting
// from the wrong window fails (checked as a precondition below).
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
  // Chunks of 10 s: the four opening windows are decoded apart from the first chunk, and partial
  // results appear while a job runs. Threads as the service's, so both compute the same numbers.
  svc = await startTestService({ SVC_MODEL: model, SVC_JOB_CHUNK_SECONDS: '10', SVC_INLINE_BOUNDARY_SECONDS: '8' });
  engine = await Engine.open({ model, workers: 1, threadsPerWorker: 2 });
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

/** The supported family the engine finds most probable on window `index` of the file (as decoded by the service). */
async function expectedFamily(path: string, index: number): Promise<string> {
  const pcm = await decodeAudioWindow(path, { startSeconds: 0, seconds: 120, container: 'wav', timeoutMs: 60_000 });
  const detected = await engine.detectLanguage(pcm.slice(index * WINDOW, (index + 1) * WINDOW));
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

t.test('an omitted language is detected from the first window and declared `detected`', async (t) => {
  const expected = await expectedFamily(speech.path, 0);
  t.ok(SUPPORTED.includes(expected));
  const { result } = await runJob(t, svc.key, speech.data);
  t.equal(result.language_source, 'detected');
  t.equal(result.language, languageOf(result, expected), `the most probable supported family (${expected})`);
  t.ok(SUPPORTED.includes(result.language) || result.language === 'und', 'a supported family');
  t.match(result.language_detection, { mode: 'per_utterance', candidates: SUPPORTED, languages: [expected], utterances: 1, fallbacks: 0 });
  for (const segment of result.segments) t.equal(segment.language, expected, 'every segment in the detected language');
});

t.test('a recording opening with 30 s of silence is detected from its second window', async (t) => {
  const fromFirst = await expectedFamily(lateSpeech.path, 0);
  const expected = await expectedFamily(lateSpeech.path, 1);
  t.not(fromFirst, expected, 'precondition: the silent window would give another answer, so the two are told apart');
  const { result, partials } = await runJob(t, svc.key, lateSpeech.data);
  t.equal(result.language_source, 'detected');
  t.equal(result.language, languageOf(result, expected), `detected from the second window (${expected})`);
  t.ok(Math.abs(result.duration - 42) < 0.2, `the whole recording is transcribed (${result.duration} s)`);
  t.ok(partials.length > 0, `partial results were seen (${partials.length})`);
  for (const partial of partials) {
    t.equal(partial.language, expected, `revision ${partial.result_revision}: the detected language`);
    t.equal(partial.language_source, 'detected', `revision ${partial.result_revision}: declared detected`);
  }
});

t.test('no speech in the four opening windows: English, declared `default`, never a detection', async (t) => {
  const { result } = await runJob(t, svc.key, silentOpening.data);
  t.equal(result.language_source, 'default');
  t.equal(result.language, languageOf(result, 'en'));
  t.notOk('language_detection' in result, 'no detection block');
  t.ok(result.duration > 126.8, 'the speech after the fourth window is still transcribed');
});

t.test("a key's default language is used as is, not detected", async (t) => {
  const dutch = svc.createKey({ defaultLanguage: 'nl' });
  const { result, partials } = await runJob(t, dutch.key, speech.data);
  t.equal(result.language_source, 'default');
  t.equal(result.language, languageOf(result, 'nl'));
  for (const partial of partials) t.equal(partial.language_source, 'default');
});

t.test('the decision is made at acceptance: a default language set on the key afterwards does not change it', async (t) => {
  const later = svc.createKey();
  const expected = await expectedFamily(speech.path, 0);
  const job = await createJob(svc.url, later.key, jobBody(speech.data, { response_format: 'verbose_json' }));
  svc.updateKey(later.id, { defaultLanguage: 'nl' });
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

t.test('the direct-upload route keeps its default (key default, then English) when it makes a job', async (t) => {
  const res = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', response_format: 'verbose_json' }, { data: lateSpeech.data, name: 'visit.wav', type: 'audio/wav' });
  t.equal(res.status, 202, 'above the inline boundary: a job');
  const job = (await res.json()) as { poll_url: string };
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
  const result = (await poll(job.poll_url, svc.key, '?include_result=true')).body.result.content;
  t.equal(result.language_source, 'default');
  t.equal(result.language, languageOf(result, 'en'));
});
