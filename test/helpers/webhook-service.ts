// The real service set up for webhook tests: a DNS server on loopback that answers for the test
// host names, an HTTPS receiver, and a key with a signing secret created through the real
// (encrypted) secret store of the service's database.
import { readFile } from 'node:fs/promises';

import type { Test } from 'tap';

import type { StartOptions } from '../../src/service/start-service.js';
import type { CreateKeyOptions } from '../../src/store/key-store.js';
import type { WebhookDelivery } from '../../src/store/webhook-outbox.js';
import type { WebhookSecretStore } from '../../src/store/webhook-secret-store.js';
import { speechWav } from './audio-fixtures.js';
import { type DnsRecords, type DnsTestServer, startDnsTestServer } from './dns-test-server.js';
import { startTestService, type TestService } from './test-service.js';

export interface WebhookSetup {
  svc: TestService;
  dns: DnsTestServer;
  key: string;
  keyId: string;
  secrets: WebhookSecretStore;
  /** Creates the key's first secret (returns the whsec_ string). */
  createSecret(nowMs: number): Promise<string>;
  delivery(jobId: string): Promise<WebhookDelivery | null>;
  /** Resolves once the job's event satisfies `done` (polling the outbox). */
  waitForDelivery(jobId: string, done: (d: WebhookDelivery) => boolean, timeoutMs?: number): Promise<WebhookDelivery>;
  audio: Buffer;
}

export async function startWebhookService(
  t: Test,
  options: {
    env?: Record<string, string>;
    start?: StartOptions;
    dns?: Record<string, DnsRecords>;
    loopback?: boolean;
    key?: CreateKeyOptions;
  } = {},
): Promise<WebhookSetup> {
  const dns = await startDnsTestServer(options.dns ?? {});
  t.teardown(() => dns.close());
  const svc = await startTestService(
    {
      SVC_WEBHOOK_DNS_SERVERS: dns.servers.join(','),
      ...(options.loopback === false ? {} : { SVC_WEBHOOK_ALLOW_LOOPBACK: '1' }),
      ...options.env,
    },
    options.start,
  );
  t.teardown(() => svc.close());
  const { key, id } = await svc.createKey(options.key);
  const { webhookSecrets: secrets, outbox } = svc.stores;
  const audio = await readFile(await speechWav(3));
  return {
    svc,
    dns,
    key,
    keyId: id,
    secrets,
    createSecret: async (nowMs) => (await secrets.create(id, nowMs)).secret,
    delivery: (jobId) => outbox.forJob(jobId),
    waitForDelivery: async (jobId, done, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const delivery = await outbox.forJob(jobId);
        if (delivery && done(delivery)) return delivery;
        if (Date.now() > deadline) throw new Error(`webhook delivery of ${jobId}: not reached (${JSON.stringify(delivery)})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    audio,
  };
}
