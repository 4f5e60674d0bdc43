// A tenant with something in every table a tenant owns, written through the real stores, for the
// erasure tests (test/application/erase-tenant.test.ts, test/cli/tenants-erase.test.ts): two API keys,
// a finished job with audio, a partial, a final and an unredacted result, a running job (open work),
// a webhook secret and delivery, a dictionary, an idempotent answer, a voice, usage, a realtime seat
// and client secret, a console account with a session and an invite.
import { writeFile } from 'node:fs/promises';

import type { BlobStore } from '../../src/store/blob-store.js';
import type { Stores } from '../../src/store/open-stores.js';
import { usageEvent } from './usage-events.js';

export const PLANTED_PHRASE = 'zebrafish-metoprolol-erasure';
export const PLANTED_AUDIO = Buffer.from('RIFF-planted-audio-bytes-0123456789');

export interface PlantedTenant {
  tenant: string;
  keyIds: string[];
  jobIds: string[];
  finishedJobId: string;
  runningJobId: string;
  voiceId: string;
  /** Every blob ref the jobs' rows name. */
  refs: string[];
}

export async function plantTenant(stores: Stores, blobs: BlobStore, tenant: string, nowMs = 1_000_000): Promise<PlantedTenant> {
  const { record: key } = await stores.keys.create({ tenant });
  const { record: other } = await stores.keys.create({ tenant });
  await stores.keys.setDictionary(key.id, 'en', ['metoprolol']);
  await stores.webhookSecrets.create(key.id, nowMs);
  const jobOf = async (seed: string) => {
    const upload = blobs.createUploadPath('test');
    await writeFile(upload, PLANTED_AUDIO);
    const audioPath = await blobs.moveToJobAudio(upload, `job_${seed}`);
    return stores.jobs.create({
      tenant,
      keyId: key.id,
      status: 'accepted',
      request: { response_format: 'json', prompt: `${PLANTED_PHRASE} ${seed}` },
      audioPath,
      audioSeconds: 10,
      webhookUrl: 'https://hooks.example.test/stt',
    });
  };
  const finished = await jobOf(`${tenant}-a`);
  const claimed = await stores.jobs.claimNext(`w-${tenant}`, nowMs, 600_000);
  if (claimed?.id !== finished.id) throw new Error('the planted job was not the one claimed');
  const partial = await blobs.writeResult(finished.id, { kind: 'partial', revision: 1 }, PLANTED_PHRASE);
  await stores.jobs.commitChunk(
    finished.id,
    `w-${tenant}`,
    { progress: { text: PLANTED_PHRASE }, completedAudioSeconds: 5, audioSeconds: 10, partialPath: partial.path },
    nowMs,
  );
  // A committed chunk gives the lease back: the next chunk is claimed again.
  if ((await stores.jobs.claimNext(`w-${tenant}`, nowMs, 600_000))?.id !== finished.id) throw new Error('the planted job was not claimed again');
  const final = await blobs.writeResult(finished.id, { kind: 'final' }, JSON.stringify({ text: PLANTED_PHRASE }));
  const unredacted = await blobs.writeResult(finished.id, { kind: 'unredacted' }, JSON.stringify({ text: PLANTED_PHRASE }));
  const event = { eventId: `evt_${tenant}`, keyId: key.id, secretVersion: 1, url: 'https://hooks.example.test/stt', body: `{"job":"${finished.id}"}` };
  const succeeded = await stores.jobs.succeed(
    finished.id,
    `w-${tenant}`,
    { resultPath: final.path, resultBytes: final.bytes, contentType: 'application/json', unredactedPath: unredacted.path },
    { resultExpiresAtMs: nowMs + 3_600_000, tombstoneUntilMs: nowMs + 7_200_000 },
    nowMs,
    event,
  );
  if (!succeeded) throw new Error('the planted job did not succeed');
  // What the worker does after succeed: the audio and the provisional result are no longer the row's.
  await blobs.delete(finished.audioPath!);
  await blobs.delete(partial.path);
  const running = await jobOf(`${tenant}-b`);
  await stores.jobs.claimNext(`w-${tenant}`, nowMs, 600_000);

  if ((await stores.idempotency.begin(tenant, 'idem-1', 'fp')).state !== 'started') throw new Error('idempotency claim refused');
  await stores.idempotency.complete(tenant, 'idem-1', { status: 200, headers: { 'content-type': 'text/plain' }, body: PLANTED_PHRASE });
  const mean = Float64Array.from({ length: 19 }, (_, i) => i + 0.5);
  const voice = await stores.voices.create(tenant, `Dr ${tenant}`, { frames: 300, mean, covariance: new Float64Array(19 * 19).fill(0.25) }, nowMs);
  await stores.usage.record(usageEvent({ eventKey: `job:${finished.id}`, tenant, keyId: key.id, audioMs: 10_000 }), {
    includedMs: null,
    priceMicrosPerHour: null,
  });
  await stores.seats.take({ seatId: `seat-${tenant}`, tenant, speakers: false }, { sessions: 5, speakerSessions: 5 }, nowMs);
  await stores.clientSecrets.mint(other.id, nowMs, nowMs + 60_000);
  const invite = await stores.consoleAccounts.createInvite(tenant, `doctor@${tenant}.example`, nowMs, 86_400_000);
  const user = await stores.consoleAccounts.acceptInvite(invite.token, 'hash-not-a-password', nowMs);
  await stores.consoleAccounts.createSession(user!.id, nowMs);
  await stores.consoleAccounts.createInvite(tenant, `nurse@${tenant}.example`, nowMs, 86_400_000);
  await stores.consoleSecondFactors.setTotpRequired(tenant, true, nowMs);
  return {
    tenant,
    keyIds: [key.id, other.id],
    jobIds: [finished.id, running.id],
    finishedJobId: finished.id,
    runningJobId: running.id,
    voiceId: voice.id,
    refs: [running.audioPath!, final.path, unredacted.path],
  };
}
