// Health and metrics on the embedded default (SQLite, local disk, role `all`): /healthz and /readyz
// need no key and report each check; /metrics is Prometheus text whose labels are route templates,
// never a job id, a key or a tenant; SVC_METRICS_PORT moves /metrics to a listener of its own.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import t from 'tap';

import { loadConfig } from '../../src/config/load-config.js';
import { RoleRefusedError, startService } from '../../src/service/start-service.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';
import { startTestService } from '../helpers/test-service.js';

t.test('healthz, readyz and metrics without a key; labels carry no ids, keys or tenants', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.close());
  const health = await fetch(`${svc.url}/healthz`);
  t.equal(health.status, 200);
  t.same(await health.json(), { status: 'ok', role: 'all', instance: svc.service.instanceId });
  const ready = await fetch(`${svc.url}/readyz`);
  t.equal(ready.status, 200);
  t.same(await ready.json(), { status: 'ready', role: 'all', checks: { database: 'ok', storage: 'ok', engine: 'ok' } });

  const { key, tenant } = await svc.createKey({ tenant: 'tenant-canary-7731' });
  // A job id and a key in the traffic: neither may become a label.
  const created = await fetch(`${svc.url}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'svc-medical-1', language: 'en', content_type: 'audio/wav', content_length_bytes: 1000, filename: 'a.wav' }),
  });
  t.equal(created.status, 201);
  const job = (await created.json()) as { id: string };
  t.equal((await fetch(`${svc.url}/v1/jobs/${job.id}`, { headers: { authorization: `Bearer ${key}` } })).status, 200);
  t.equal((await fetch(`${svc.url}/v1/jobs/job_nope`, { headers: { authorization: `Bearer ${key}` } })).status, 404);
  t.equal((await fetch(`${svc.url}/no/such/path/secret-path-canary`)).status, 404);
  // An inline request: its engine calls are counted in the interactive class.
  const form = new FormData();
  form.append('model', 'svc-medical-1');
  form.append('language', 'en');
  form.append('file', new Blob([(await readFile(await speechWav(3))) as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'a.wav');
  const inline = await fetch(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  t.equal(inline.status, 200);
  await inline.body?.cancel();
  // A housekeeping pass after the start's: the background sealing counts what is still plain.
  await svc.service.sweepNow();

  const metrics = await fetch(`${svc.url}/metrics`);
  t.equal(metrics.status, 200);
  t.match(metrics.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const text = await metrics.text();
  t.match(text, /svc_stt_http_requests_total\{route="\/v1\/jobs",method="POST",status="201",role="all"\} 1/);
  t.match(text, /svc_stt_http_requests_total\{route="\/v1\/jobs\/:job_id",method="GET",status="200",role="all"\} 1/);
  t.match(text, /svc_stt_http_requests_total\{route="\/v1\/jobs\/:job_id",method="GET",status="404",role="all"\} 1/);
  t.match(text, /svc_stt_http_requests_total\{route="unmatched",method="GET",status="404",role="all"\} 1/);
  t.match(text, /svc_stt_http_request_duration_seconds_bucket\{le="120",role="all",route="\/v1\/jobs",method="POST",status="201"\} 1/);
  t.match(text, /svc_stt_jobs\{state="awaiting_upload",role="all"\} 1/);
  t.match(text, /svc_stt_job_queue_depth\{role="all"\} 0/);
  t.match(text, /svc_stt_store_up\{role="all"\} 1/);
  t.match(text, /svc_stt_plain_content_values\{column="jobs\.request",role="all"\} 0/, 'nothing left plain: this install sealed all it wrote');
  t.match(text, /svc_stt_engine_workers\{model="svc-medical-1,svc-medical-edge-1",role="all"\} 1/);
  t.match(text, /svc_stt_engine_utilisation\{model="svc-medical-1,svc-medical-edge-1",role="all"\} 0/);
  t.match(text, /svc_stt_engine_class_queued\{model="svc-medical-1,svc-medical-edge-1",class="realtime_final",role="all"\} 0/);
  t.match(text, /svc_stt_engine_class_oldest_wait_seconds\{model="svc-medical-1,svc-medical-edge-1",class="batch",role="all"\} 0/);
  t.match(text, /svc_stt_engine_class_dispatched_total\{model="svc-medical-1,svc-medical-edge-1",class="interactive",role="all"\} [1-9]/);
  t.match(text, /svc_stt_engine_class_dispatched_total\{model="svc-medical-1,svc-medical-edge-1",class="batch",role="all"\} 0/);
  t.match(text, /# TYPE svc_stt_engine_class_wait_seconds_total counter/);
  t.match(text, /svc_stt_engine_encoder_runs_total\{model="svc-medical-1,svc-medical-edge-1",role="all"\} [1-9]/, "the inline request's windows were encoded");
  t.match(text, /svc_stt_engine_decoder_steps_total\{model="svc-medical-1,svc-medical-edge-1",role="all"\} [1-9]/, 'and decoded');
  t.notMatch(text, /model="svc-medical-edge-1"/, 'both ids name one model file: one engine, one series, counted once in a sum');
  t.match(text, /# TYPE svc_stt_job_processing_seconds_per_audio_second histogram/);
  t.match(text, /# TYPE svc_stt_webhook_attempts_total counter/);
  t.match(text, /svc_stt_process_resident_memory_bytes/);
  for (const secret of [job.id, key, key.slice(0, 12), tenant, 'secret-path-canary']) {
    t.notOk(text.includes(secret), `no label or value carries ${secret.slice(0, 8)}…`);
  }
});

t.test('SVC_METRICS_PORT: /metrics on its own listener only; an edge model of its own reports an engine of its own', async (t) => {
  // The edge id on a model file of its own: an engine of its own, a series of its own.
  const svc = await startTestService({ SVC_METRICS_PORT: '0', SVC_EDGE_MODEL: await testModelPath('micro', 2) });
  t.teardown(() => svc.close());
  t.ok(svc.service.metricsUrl);
  t.equal((await fetch(`${svc.url}/metrics`)).status, 404, 'not on the API port');
  const metrics = await fetch(`${svc.service.metricsUrl}/metrics`);
  t.equal(metrics.status, 200);
  const text = await metrics.text();
  t.match(text, /svc_stt_job_queue_depth/);
  t.match(text, /svc_stt_engine_workers\{model="svc-medical-1",role="all"\} 1/);
  t.match(text, /svc_stt_engine_workers\{model="svc-medical-edge-1",role="all"\} 1/);
  t.equal((await fetch(`${svc.service.metricsUrl}/v1/jobs`)).status, 404, 'the metrics listener serves nothing else');
  t.equal((await fetch(`${svc.url}/readyz`)).status, 200, 'health stays on the main port');
});

t.test('the api and worker roles are refused on SQLite, before anything listens or is created', async (t) => {
  for (const role of ['api', 'worker']) {
    const dataDir = join(t.testdir(), 'data');
    const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_MODEL: await testModelPath('micro'), SVC_ROLE: role, SVC_LOG_LEVEL: 'silent' });
    await t.rejects(startService(config), RoleRefusedError, role);
    t.notOk(existsSync(dataDir), `${role}: no data folder, no svc-stt.db in it`);
  }
});
