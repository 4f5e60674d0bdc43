// Crash safety with real processes: `svc-stt serve` is SIGKILLed while jobs are uploading, queued,
// running and finishing, then restarted on the same data folder (twice). Every job must end
// succeeded (or explicitly failed), none may vanish, and no audio or provisional result may be left;
// each job is metered once.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { completeJob, type CreatedJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { firstKey, kill, serve, serveEnv } from '../helpers/serve-process.js';
import { postTranscription } from '../helpers/test-service.js';

/** Starts a presigned upload that sends the form and half of the file, then stalls (until killed). */
function stalledUpload(job: CreatedJob, data: Uint8Array): void {
  const boundary = '----crash-test-boundary';
  const head = Object.entries(job.upload.fields)
    .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    .join('');
  const fileHead = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="visit.wav"\r\nContent-Type: audio/wav\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const total = Buffer.byteLength(head) + Buffer.byteLength(fileHead) + data.length + Buffer.byteLength(tail);
  const req = httpRequest(job.upload.url, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(total) },
  });
  req.on('error', () => {});
  req.write(head + fileHead);
  req.write(data.subarray(0, data.length >> 1));
}

t.test('SIGKILL while uploading, queued, running and finishing: every job ends, nothing is left', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-crash-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const env = await serveEnv(dataDir, { SVC_JOB_CHUNK_SECONDS: '5', SVC_INLINE_BOUNDARY_SECONDS: '5' });
  const long = await readFile(await speechWav(40));
  const medium = await readFile(await speechWav(12));

  let server = await serve(env);
  // A failed assertion must not leave a server running (it would hold the test run open).
  t.teardown(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });
  const key = await firstKey(dataDir);

  // Running (long, chunked) and queued behind it.
  const running = await createJob(server.url, key, jobBody(long));
  const queued = await Promise.all([0, 1, 2].map(() => createJob(server.url, key, jobBody(medium))));
  for (const [job, data] of [[running, long], ...queued.map((q) => [q, medium] as const)] as const) {
    t.equal((await uploadFile(job, data)).status, 204);
    t.equal((await completeJob(job, key)).status, 202);
  }
  // A direct upload above the boundary: accepted into the same queue.
  const direct = await postTranscription(
    server.url,
    key,
    { model: 'svc-medical-1', response_format: 'json' },
    { data: medium, name: 'd.wav', type: 'audio/wav' },
  );
  t.equal(direct.status, 202);
  const directJob = (await direct.json()) as { id: string; poll_url: string };
  // Uploaded but never completed, and one cut off mid-upload.
  const uploadedOnly = await createJob(server.url, key, jobBody(medium));
  t.equal((await uploadFile(uploadedOnly, medium)).status, 204);
  const cutOff = await createJob(server.url, key, jobBody(medium));
  stalledUpload(cutOff, medium);

  // Kill once the long job has committed provisional progress.
  for (;;) {
    const { body } = await poll(running.poll_url, key, '?wait=20');
    if (body.transcription?.result_revision >= 2 || body.status === 'succeeded') break;
  }
  await kill(server);

  // Second life: killed again shortly after it starts working (mid-chunk or mid-finish).
  server = await serve(env);
  await new Promise((r) => setTimeout(r, 1500));
  await kill(server);

  // Third life: everything must finish. Each life listens on a new port: links are rebased onto it.
  server = await serve({ ...env });
  const at = (url: string) => url.replace(/^http:\/\/[^/]+/, server.url);
  const rebase = (job: CreatedJob): CreatedJob => ({
    ...job,
    poll_url: at(job.poll_url),
    complete_url: at(job.complete_url),
    upload: { ...job.upload, url: at(job.upload.url) },
  });
  const recovered = await poll(at(cutOff.poll_url), key);
  t.equal(recovered.body.status, 'awaiting_upload', 'the cut-off upload left the job waiting');
  t.equal((await uploadFile(rebase(cutOff), medium)).status, 204, 'and its form works again after the restart');
  for (const job of [cutOff, uploadedOnly]) t.equal((await completeJob(rebase(job), key)).status, 202);

  const all = [running, ...queued, cutOff, uploadedOnly].map((j) => j.poll_url).concat(directJob.poll_url);
  for (const pollUrl of all) {
    const done = await waitForEnd(at(pollUrl), key, 300_000);
    t.equal(done.status, 'succeeded', `${done.id} succeeded${done.error ? ` (${done.error.code})` : ''}`);
  }
  const blobs = join(dataDir, 'blobs');
  t.same(await readdir(join(blobs, 'jobs')), [], 'no job audio left');
  t.same(await readdir(join(blobs, 'uploads')), [], 'no partial upload left');
  const results = await readdir(join(blobs, 'results'));
  t.equal(results.length, all.length, 'one final result per job');
  t.ok(
    results.every((name) => name.endsWith('.result')),
    'no provisional result left',
  );

  // Metered exactly once each, although chunks ran again after each kill: the ledger entry is
  // written with the success itself. The audio reconciles with the recordings to the millisecond.
  const usage = (await (await fetch(`${server.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
    keys: Array<{ lines: Array<{ route: string; units: number; audio_seconds: number }> }>;
  };
  const jobLines = usage.keys.flatMap((k) => k.lines).filter((line) => line.route === 'job');
  t.equal(
    jobLines.reduce((n, line) => n + line.units, 0),
    all.length,
    'one ledger entry per job',
  );
  t.equal(
    jobLines.reduce((n, line) => n + line.audio_seconds, 0),
    40 + 6 * 12,
    'the audio of every job, counted once',
  );

  server.child.kill('SIGTERM');
  await server.exited;
});
