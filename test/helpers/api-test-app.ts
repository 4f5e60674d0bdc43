// Builds the HTTP frame for tests: a fake key store, a clock the test can advance, and a set of
// probe routes exercising each part of the frame (JSON validation, failures, entitlements, billing,
// multipart, a public route).
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';

import type { AppDependencies, RoutePlugin } from '../../src/api/app-dependencies.js';
import { requireEntitlement } from '../../src/api/authenticate.js';
import { buildApp } from '../../src/api/build-app.js';
import { applyProfileDeprecation } from '../../src/api/deprecation.js';
import { BillingBlockedError } from '../../src/billing/billing-errors.js';
import { DEFAULTS, type ServiceConfig } from '../../src/config/service-config.js';
import type { CreateKeyOptions } from '../../src/store/key-store.js';
import { FakeKeyStore } from './fake-key-store.js';

/** A string no error body or log line may ever contain when a request carried it. */
export const CANARY = 'ECHO-CANARY-1234';
export const UNEXPECTED_ERROR_TEXT = `database password is hunter2 near ${CANARY}`;

export function testConfig(overrides: Partial<ServiceConfig> = {}): ServiceConfig {
  return {
    ...DEFAULTS,
    dataDir: '/nonexistent',
    database: { url: null },
    storage: { s3: null },
    metricsPort: null,
    metricsTenantLabels: 0,
    lifecycle: { ...DEFAULTS.lifecycle },
    models: { 'svc-medical-1': '/nonexistent/model.bin', 'svc-medical-edge-1': '/nonexistent/model.bin' },
    vad: { enabled: false, model: '/nonexistent/vad.bin' },
    pool: { workers: 1, threadsPerWorker: 1, maxQueue: 4 },
    upload: { ...DEFAULTS.upload },
    decoding: { ...DEFAULTS.decoding },
    webhooks: { masterKey: null, previousMasterKeys: [], kms: null, allowLoopback: false, dnsServers: null, attemptTimeoutMs: 10_000 },
    publicBaseUrl: 'http://127.0.0.1:8080',
    logLevel: 'silent',
    ...overrides,
  };
}

export class TestClock {
  constructor(public ms = Date.UTC(2030, 0, 1)) {}
  now = (): Date => new Date(this.ms);
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export const probeRoutes: RoutePlugin = async (app) => {
  app.get('/v1/things/:thing_id', async (request) => ({ ok: true, key: request.apiKey?.id ?? null }));
  app.delete('/v1/things/:thing_id', async () => ({ deleted: true }));
  app.post(
    '/v1/things',
    {
      schema: {
        body: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', maxLength: 8 }, size: { type: 'integer' } },
        },
      },
    },
    async (request, reply) => reply.code(201).send({ created: true, body: request.body }),
  );
  app.get('/v1/boom', async (_request, reply) => {
    // A route that had started shaping a text answer before failing: the envelope must still be JSON.
    reply.type('text/plain');
    throw new Error(UNEXPECTED_ERROR_TEXT);
  });
  app.post('/v1/patterns-only', async (request) => {
    requireEntitlement(request, 'patterns');
    return { ok: true };
  });
  app.post('/v1/new-work', async (request) => {
    // The billing layer's refusal, as UsageBilling throws it for a paused key (tested in test/billing/).
    if (request.apiKey!.billingState !== 'active') throw new BillingBlockedError('paused', 'batch', null);
    return { ok: true };
  });
  app.get('/v1/profile', async (request, reply) => {
    applyProfileDeprecation(reply, (request.query as { profile?: string }).profile);
    return { ok: true };
  });
  app.get('/v1/public-probe', { config: { public: true } }, async (request) => ({ public: true, key: request.apiKey }));
};

/** Multipart parsing lives in its own scope, as the transcription route does it. */
export const multipartProbeRoutes: RoutePlugin = async (app) => {
  await app.register(multipart);
  app.post('/v1/upload', async (request) => {
    const names: string[] = [];
    for await (const part of request.parts({ limits: { fileSize: 64, files: 1, fields: 2, parts: 4 } })) {
      if (part.type === 'file') {
        await part.toBuffer();
        names.push(`file:${part.fieldname}`);
      } else names.push(`field:${part.fieldname}`);
    }
    return { names };
  });
};

export interface TestApp {
  app: FastifyInstance;
  keys: FakeKeyStore;
  clock: TestClock;
  /** A fresh valid key. */
  key(options?: CreateKeyOptions): { key: string; id: string; auth: { authorization: string } };
}

export async function buildTestApp(t: Test, extra: Partial<AppDependencies> = {}): Promise<TestApp> {
  const keys = new FakeKeyStore();
  const clock = new TestClock();
  const app = buildApp({
    config: testConfig(),
    keys,
    logger: false,
    now: clock.now,
    routes: [probeRoutes, multipartProbeRoutes],
    ...extra,
  });
  t.teardown(() => app.close());
  await app.ready();
  return {
    app,
    keys,
    clock,
    key(options) {
      const { key, record } = keys.add(options);
      return { key, id: record.id, auth: { authorization: `Bearer ${key}` } };
    },
  };
}

/** The response is exactly the envelope: one top-level key `error` with exactly `code` and `message`. */
export function assertEnvelope(t: Test, response: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, code: string): void {
  t.equal(response.statusCode, status, `status ${status}`);
  t.match(String(response.headers['content-type']), /^application\/json/, 'JSON content type');
  t.match(String(response.headers['x-request-id']), /^req_[0-9A-Za-z]{20}$/, 'x-request-id');
  const body = JSON.parse(response.body) as Record<string, unknown>;
  t.same(Object.keys(body), ['error'], 'one top-level key: error');
  const error = body.error as Record<string, unknown>;
  t.same(Object.keys(error).sort(), ['code', 'message'], 'error has exactly code and message');
  t.equal(error.code, code, `code ${code}`);
  t.type(error.message, 'string');
  t.ok((error.message as string).length > 0, 'a message');
  t.notOk(response.body.includes(CANARY), 'no request content echoed');
}
