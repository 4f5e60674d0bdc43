// What a job is metered with: its whole audio once it succeeds (recorded with the success itself,
// JobStore.succeed), or a safety counter when it failed on an unsupported language. Keyed by the
// job: a job ends once, so it is metered once, whichever worker ends it and however often its
// chunks ran again.
import type { BilledKey, UsageBilling, WorkDone } from '../billing/usage-billing.js';
import { UnsupportedDetectedLanguage } from '../pipeline/pipeline-errors.js';
import { unsupportedLanguageCounters, usageFamilyOf, usesVocabulary, vocabularySafety } from '../pipeline/usage-counters.js';
import type { JobRecord } from '../store/job-store.js';
import { DEFAULT_PLAN } from '../store/key-record.js';
import type { KeyStore } from '../store/key-store.js';
import { type MeteredWork, NO_SAFETY_EVENTS } from '../store/usage-record.js';
import type { CarryOver } from './job-carry-over.js';
import type { JobFailure } from './job-failure.js';
import type { StoredJobRequest } from './job-request.js';

export function jobUsageKey(jobId: string): string {
  return `job:${jobId}`;
}

/** The key the job is billed to; a key deleted since (never done by svc-stt itself) bills as the default plan. */
export async function billedKeyOf(job: JobRecord, keys: Pick<KeyStore, 'get'>): Promise<BilledKey> {
  return (await keys.get(job.keyId)) ?? { id: job.keyId, tenant: job.tenant, plan: DEFAULT_PLAN, billingState: 'active' };
}

export function jobWorkDone(job: JobRecord, request: StoredJobRequest, carry: CarryOver, endSeconds: number): WorkDone {
  return {
    eventKey: jobUsageKey(job.id),
    route: 'job',
    model: request.model,
    languageFamily: usageFamilyOf(carry.language.language),
    diarization: request.diarize,
    // A tally exists when any chunk was prompted (terms, the key's dictionary or a prompt).
    vocabulary: usesVocabulary(request, 0) || carry.vocabulary !== undefined,
    patterns: request.patterns.length > 0,
    audioMs: Math.round(endSeconds * 1000),
    safety: { ...NO_SAFETY_EVENTS, ...vocabularySafety(carry.vocabulary ?? null) },
  };
}

/** What JobStore.succeed records with the job's success. */
export async function jobUsage(
  billing: UsageBilling,
  keys: Pick<KeyStore, 'get'>,
  job: JobRecord,
  request: StoredJobRequest,
  carry: CarryOver,
  endSeconds: number,
): Promise<MeteredWork> {
  return billing.meteredWork(await billedKeyOf(job, keys), jobWorkDone(job, request, carry, endSeconds));
}

/** A job that failed because its language is not supported is counted (no audio is billed for it). */
export async function meterUnsupportedLanguage(
  billing: UsageBilling,
  keys: Pick<KeyStore, 'get'>,
  job: JobRecord,
  request: StoredJobRequest,
  failure: JobFailure,
): Promise<void> {
  if (!(failure.cause instanceof UnsupportedDetectedLanguage)) return;
  await billing.meter(await billedKeyOf(job, keys), {
    eventKey: jobUsageKey(job.id),
    route: 'job',
    model: request.model,
    ...unsupportedLanguageCounters(request),
  });
}
