// Traces with a real `svc-stt serve` and an OTLP/HTTP receiver of this test's own on loopback: an inline
// request is one trace from its route through decoding, the VAD and the engine's windows; a job
// continues the trace of the request that created it in the worker that runs it; no attribute carries
// the key, a file name, the vocabulary or the transcript. Without an endpoint nothing is exported.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t from 'tap';

import { encodeAs, speechWav } from '../helpers/audio-fixtures.js';
import { completeJob, createJob, jobBody, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { firstKey, serve, serveEnv } from '../helpers/serve-process.js';
import { postTranscription } from '../helpers/test-service.js';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** An OTLP/HTTP trace receiver: every span posted to /v1/traces, in order. */
async function otlpReceiver(t: { teardown: (fn: () => unknown) => void }) {
  const spans: ExportedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
      bodies.push(body);
      const data = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: ExportedSpan[] }> }> };
      for (const resource of data.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, spans, bodies };
}

const attribute = (span: ExportedSpan, key: string) => Object.values(span.attributes.find((a) => a.key === key)?.value ?? {})[0];

t.test('one trace per request and per job, across the worker; no content in any attribute', async (t) => {
  const receiver = await otlpReceiver(t);
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-trace-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const server = await serve(await serveEnv(dataDir, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'svc-trace-test' }));
  t.teardown(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });
  const key = await firstKey(dataDir);
  const wav = await speechWav(6);
  const audio = await readFile(wav);
  // Compressed, so the upload is decoded by ffmpeg (a WAV is read as it is).
  const mp3 = await readFile(await encodeAs(wav, 'mp3'));
  const planted = 'Quartermaine';

  const inline = await postTranscription(
    server.url,
    key,
    { model: 'svc-medical-1', response_format: 'json', vocabulary: JSON.stringify([planted]) },
    { data: mp3, name: `${planted}.mp3`, type: 'audio/mpeg' },
  );
  const inlineBody = await inline.clone().text();
  t.equal(inline.status, 200, inlineBody);
  const text = ((await inline.json()) as { text: string }).text;
  const job = await createJob(server.url, key, jobBody(audio, { vocabulary: [planted] }));
  t.equal((await uploadFile(job, audio)).status, 204);
  t.equal((await completeJob(job, key)).status, 202);
  t.equal((await waitForEnd(job.poll_url, key)).status, 'succeeded');

  // A graceful stop flushes what is batched.
  server.child.kill('SIGTERM');
  await server.exited;

  const spans = receiver.spans;
  const request = spans.find((s) => s.name === 'POST /v1/audio/transcriptions');
  t.ok(request, 'the inline request is a span named by its route');
  t.equal(request!.kind, 2, 'a server span');
  t.equal(attribute(request!, 'http.response.status_code'), 200);
  const inTrace = (traceId: string) => spans.filter((s) => s.traceId === traceId).map((s) => s.name);
  t.ok(inTrace(request!.traceId).includes('decode'), 'decoding is part of the request');
  t.ok(inTrace(request!.traceId).includes('engine detectSpeech'), 'the VAD is part of the request');
  t.ok(inTrace(request!.traceId).includes('engine transcribe'), 'each engine window is part of the request');
  const window = spans.find((s) => s.traceId === request!.traceId && s.name === 'engine transcribe')!;
  t.type(attribute(window, 'svc.engine.queue_wait_ms'), 'number', 'the window says how long it waited');
  t.type(attribute(window, 'svc.engine.compute_ms'), 'number', 'and how long it computed');

  const created = spans.find((s) => s.name === 'POST /v1/jobs');
  t.ok(created, 'the job creation is a span');
  const chunk = spans.find((s) => s.name === 'job chunk' && attribute(s, 'svc.job.id') === job.id);
  t.ok(chunk, "the worker's claim is a span");
  t.equal(chunk!.traceId, created!.traceId, "the worker continues the creating request's trace");
  t.ok(inTrace(chunk!.traceId).includes('engine transcribe'), "the job's windows are in its trace");

  const exported = receiver.bodies.join('\n');
  t.notOk(exported.includes(key), 'no key');
  t.notOk(exported.includes(key.split('_')[2] ?? key), "no part of the key's secret");
  t.notOk(exported.includes(planted), 'no file name, no vocabulary');
  if (text.trim().length > 3) t.notOk(exported.includes(text.trim()), 'no transcript');
});

t.test('without an OTLP endpoint nothing is exported', async (t) => {
  const receiver = await otlpReceiver(t);
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-trace-off-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  // The receiver is named only where it is not an endpoint setting.
  const server = await serve(await serveEnv(dataDir, { OTEL_SERVICE_NAME: receiver.url }));
  t.teardown(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });
  const key = await firstKey(dataDir);
  const audio = await readFile(await speechWav(3));
  t.equal((await postTranscription(server.url, key, { model: 'svc-medical-1' }, { data: audio, name: 'a.wav', type: 'audio/wav' })).status, 200);
  server.child.kill('SIGTERM');
  await server.exited;
  t.equal(receiver.bodies.length, 0);
});
