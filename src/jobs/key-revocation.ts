// What revoking an API key does beyond refusing the key (issue 14). It runs in whichever process
// revokes — `svc-stt keys revoke` works on the data folder directly, while the server may be running
// on the same database — so it needs nothing of the server: store transitions and blob deletions.
// The server holds up its end on its own: the upload route re-checks the form's key on every request
// (and closes the slots itself if it finds them still open), authentication reads the key store on
// every request, long polls re-check the key while they wait, and the webhook worker re-checks the
// key before every attempt.
//
// Decisions, for a medical service:
// - Open presigned forms are bearer credentials derived from the key, so they die with it: every
//   `awaiting_upload` job of the key fails and any audio it received is deleted. The code is
//   `job_expired` (the contract's code for an upload that never completed; the slot's authority
//   expired early), with a message that says why. No other failure code would be true.
// - Jobs already accepted (202) keep running: their audio was acknowledged while the key was valid,
//   and no failure code would be true of them. They stay the revoked key's (jobs are owner-scoped,
//   src/application/find-own-job.ts): the tenant's other keys get 404 for them like any other key,
//   and the revoked key itself gets 401 on every route, in-flight requests included.
// - Pending webhook events of the key are not sent any more (state `failed`, last status below).
//   The destination and its signing secret were configured by whoever held the key; revocation is
//   the operator's brake for a leaked credential, and an event — even without transcript text —
//   tells its receiver when a patient encounter was transcribed. A client rotating keys collects
//   the old key's jobs with that key before it is revoked: no other key can poll them.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { BlobStore } from '../store/blob-store.js';
import type { JobStore } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { WebhookOutbox } from '../store/webhook-outbox.js';
import { effectiveRetentionHours, retentionFrom } from './job-retention.js';

export const KEY_REVOKED_JOB_MESSAGE = 'the API key that created this job was revoked before its upload was completed';
export const KEY_REVOKED_DELIVERY_STATUS = 'not sent: the API key was revoked';

export interface UploadSlotClosing {
  /** Jobs moved from `awaiting_upload` to `failed`. */
  slotsClosed: number;
  /** Audio files (received uploads) deleted with them. */
  filesDeleted: number;
}

export interface KeyRevocation extends UploadSlotClosing {
  /** False when the key was already revoked (the rest is done again anyway: it is idempotent). */
  revoked: boolean;
  record: ApiKeyRecord;
  webhookEventsCancelled: number;
}

export interface KeyRevocationStores {
  keys: Pick<KeyStore, 'get' | 'revoke'>;
  jobs: Pick<JobStore, 'closeUploadSlotsOfKey'>;
  blobs: Pick<BlobStore, 'delete' | 'directUploads'>;
  outbox: Pick<WebhookOutbox, 'abandonForKey'>;
}

/**
 * Revokes the key, then closes what it left open. Running it again on a revoked key closes whatever
 * an interrupted earlier run (or a request racing the revocation) left behind.
 */
export async function revokeKey(stores: KeyRevocationStores, keyId: string, nowMs: number): Promise<KeyRevocation> {
  const revoked = await stores.keys.revoke(keyId);
  const record = (await stores.keys.get(keyId))!;
  const closing = await closeUploadSlotsOfKey(stores, record, nowMs);
  const webhookEventsCancelled = await stores.outbox.abandonForKey(keyId, KEY_REVOKED_DELIVERY_STATUS, nowMs);
  return { revoked, record, ...closing, webhookEventsCancelled };
}

export interface DueRevocationStores extends KeyRevocationStores {
  keys: Pick<KeyStore, 'get' | 'revoke' | 'dueRevocations'>;
}

/**
 * Carries out the scheduled revocations that have come (a rotation's overlap ended): each key is
 * revoked and what it left open is closed, as revokeKey does. The key was refused since its
 * revoke_at already; any process may run this, and the revocations it made itself are returned
 * (of processes racing, one revokes each key; closing again is harmless).
 */
export async function revokeDueKeys(stores: DueRevocationStores, nowMs: number): Promise<KeyRevocation[]> {
  const made: KeyRevocation[] = [];
  for (const keyId of await stores.keys.dueRevocations()) {
    const revocation = await revokeKey(stores, keyId, nowMs);
    if (revocation.revoked) made.push(revocation);
  }
  return made;
}

/** Fails the key's `awaiting_upload` jobs and deletes the audio they had received. */
export async function closeUploadSlotsOfKey(
  stores: Pick<KeyRevocationStores, 'jobs' | 'blobs'>,
  key: Pick<ApiKeyRecord, 'id' | 'retentionHours'>,
  nowMs: number,
): Promise<UploadSlotClosing> {
  const released = await stores.jobs.closeUploadSlotsOfKey(
    key.id,
    { code: 'job_expired', message: KEY_REVOKED_JOB_MESSAGE },
    // The failed record stays for the retention the job was created with, like any failed job.
    (job) => retentionFrom(nowMs, effectiveRetentionHours(job, job.retentionHours ?? key.retentionHours)),
    nowMs,
  );
  let filesDeleted = 0;
  for (const { id, paths } of released) {
    for (const path of paths) {
      await stores.blobs.delete(path);
      filesDeleted += 1;
    }
    // A file posted straight to the bucket but never completed is not the job's audio yet: remove it too.
    await stores.blobs.directUploads?.discard(id);
  }
  return { slotsClosed: released.length, filesDeleted };
}
